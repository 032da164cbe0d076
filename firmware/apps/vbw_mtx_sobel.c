/*
 * vbw_mtx_sobel.c - port of the SDK benchmark vbw_mtx_sobel (2018.08): luma and 3x3 Sobel
 * edge magnitude of a 1920x1080 aRGB image. luma = (25 b + 129 g + 66 r + 128) >> 8; the edge
 * of an interior pixel is min(255, (|gx| + |gy|) >> 2) with gx and gy the [1 2 1]-weighted
 * column and row differences of the luma; the output pixel carries it in blue, green and red
 * (alpha 0), and the border pixels are 0. Computed on the CPU (scalar_rgb2luma then
 * scalar_sobel_argb32_3x3) and on the MXP (vbxware vbw_sobel_argb32_3x3); the blue, green and
 * red bytes of every pixel are compared. Returns the number of mismatching pixels.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.8): input (vbx_shared_malloc), its cached
 * view scalar_input (vbx_remap_cached: no allocation), scalar_luma (malloc), vbx_output
 * (shared), scalar_output (malloc), in that order in one heap. input is initialised through
 * the uncached pointer; the scalar code reads it through the cached view (after the
 * initialisation) and writes scalar_luma and every pixel of scalar_output through the cache;
 * nothing flushes. (picolibc's malloc also zeroes each block through the cache; the SDK's
 * vbx_shared_malloc flushes the block out of the cache afterwards.) The MXP then reads every
 * input row and writes every output pixel: the interior rows, the zero rows 0 and 1079, and
 * the zero columns 0 and 1919, one 4-byte DMA per row. One sync, at the routine's end (as the
 * SDK's routine; its test program has none), timed; the comparison follows it.
 *
 * Injected-bug switches: BUG_CACHED_INPUT_INIT (bugs/; the image is written through the cached
 * view scalar_input, and never flushed, so the DMA may read stale memory), BUG_CACHED_OUTPUT
 * (bugs/; vbx_output from malloc, whose zeroing leaves it in dirty lines and whose comparison
 * reads may use lines fetched before the DMA-outs wrote them), BUG_NO_FINAL_SYNC (bugs/,
 * which compiles its own copy of the vbxware routine without its final sync: the comparison
 * races the DMA-outs; with nothing ever synced, the race checker's cost grows with the pending
 * engine operations (~28,000) times the uncached CPU accesses (the comparison's ~6 million),
 * so its test stops at the first race with --halt-on-race).
 *
 * expect-exit: 0
 * qemu: skip (needs the MXP)
 * output: timing-dependent
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include "vbx_copyright.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_sobel.h"

VBXCOPYRIGHT(test_mtx_sobel)

#define IMAGE_WIDTH 1920
#define IMAGE_HEIGHT 1080
#define IMAGE_PITCH IMAGE_WIDTH
#define RENORM 2                /* edge = (|gx| + |gy|) >> RENORM */
#define MAX_PRINTED_ERRORS 20

/* One aRGB pixel as the words of the image hold it (little-endian: blue is byte 0). */
typedef struct {
    uint8_t b, g, r, a;
} pixel;

/* The test image: one 32-bit LFSR, seeded -2 and stepped four times per pixel; red, green
 * and blue take its low byte in turn, alpha is 0 (its step is still taken). */
static void init_image(pixel *img, int width, int height, int pitch)
{
    int s = -2;

    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            pixel *p = &img[y * pitch + x];
            p->r = (uint8_t)(s & 0xFF);
            s = lfsr_32(s);
            p->g = (uint8_t)(s & 0xFF);
            s = lfsr_32(s);
            p->b = (uint8_t)(s & 0xFF);
            s = lfsr_32(s);
            p->a = 0;
            s = lfsr_32(s);
        }
    }
}

/* The scalar reference, part 1: the luma of every pixel. */
static void scalar_rgb2luma(uint16_t *luma, const pixel *img, int width, int height, int pitch)
{
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const pixel *p = &img[y * pitch + x];
            luma[y * pitch + x] = (uint16_t)((25 * p->b + 129 * p->g + 66 * p->r + 128) >> 8);
        }
    }
}

/* The edge magnitude of interior pixel (x, y) of the luma image. */
static unsigned sobel_3x3(const uint16_t *luma, int x, int y, int pitch, int renorm)
{
    const uint16_t *up = luma + (y - 1) * pitch, *mid = luma + y * pitch, *down = luma + (y + 1) * pitch;
    int left = up[x - 1] + 2 * mid[x - 1] + down[x - 1];
    int right = up[x + 1] + 2 * mid[x + 1] + down[x + 1];
    int above = up[x - 1] + 2 * up[x] + up[x + 1];
    int below = down[x - 1] + 2 * down[x] + down[x + 1];
    unsigned edge = (unsigned)(abs(left - right) + abs(above - below)) >> renorm;
    return edge > 255 ? 255 : edge;
}

/* The scalar reference, part 2: every output pixel (0 on the border). */
static void scalar_sobel_argb32_3x3(pixel *out, const uint16_t *luma, int width, int height, int pitch,
                                    int renorm)
{
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            int interior = y > 0 && y < height - 1 && x > 0 && x < width - 1;
            uint8_t edge = interior ? (uint8_t)sobel_3x3(luma, x, y, pitch, renorm) : 0;
            pixel *p = &out[y * pitch + x];
            p->b = edge;
            p->g = edge;
            p->r = edge;
            p->a = 0;
        }
    }
}

/* Number of pixels whose blue, green or red bytes differ; the first few are printed. */
static int compare_rgb(const pixel *scalar, const pixel *vector, int width, int height, int pitch)
{
    int errors = 0;

    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const pixel *s = &scalar[y * pitch + x], *v = &vector[y * pitch + x];
            if (s->r == v->r && s->g == v->g && s->b == v->b)
                continue;
            if (errors < MAX_PRINTED_ERRORS)
                printf("Mismatch at (%d, %d): scalar rgb %02X %02X %02X, vector rgb %02X %02X %02X\n", x,
                       y, s->r, s->g, s->b, v->r, v->g, v->b);
            errors++;
        }
    }
    return errors;
}

static double test_scalar(pixel *scalar_output, uint16_t *scalar_luma, const pixel *scalar_input)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_rgb2luma(scalar_luma, scalar_input, IMAGE_WIDTH, IMAGE_HEIGHT, IMAGE_PITCH);
    scalar_sobel_argb32_3x3(scalar_output, scalar_luma, IMAGE_WIDTH, IMAGE_HEIGHT, IMAGE_PITCH, RENORM);
    time_stop = vbx_timestamp();
    return vbx_print_scalar_time(time_start, time_stop);
}

static int test_vector(pixel *vbx_output, pixel *input, double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    /* The routine syncs at its end: the comparison below may read its output. */
    int status = vbw_sobel_argb32_3x3((unsigned *)vbx_output, (unsigned *)input, IMAGE_WIDTH,
                                      IMAGE_HEIGHT, IMAGE_PITCH, RENORM);
    time_stop = vbx_timestamp();
    vbx_print_vector_time(time_start, time_stop, scalar_time);

    if (status != VBW_SUCCESS)
        printf("\nvbw_sobel_argb32_3x3 failed: %d\n", status);
    return status;
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();
    printf("\nSobel 3x3 edge detection test: %dx%d aRGB image\n", IMAGE_WIDTH, IMAGE_HEIGHT);

    const int image_bytes = IMAGE_HEIGHT * IMAGE_PITCH * sizeof(pixel);
    const int luma_bytes = IMAGE_HEIGHT * IMAGE_PITCH * sizeof(uint16_t);

    pixel *input = vbx_shared_malloc(image_bytes);
    pixel *scalar_input = vbx_remap_cached(input, image_bytes);
    uint16_t *scalar_luma = malloc(luma_bytes);
#ifdef BUG_CACHED_OUTPUT
    pixel *vbx_output = malloc(image_bytes); /* cached, and never flushed or invalidated */
#else
    pixel *vbx_output = vbx_shared_malloc(image_bytes);
#endif
    pixel *scalar_output = malloc(image_bytes);
    if (!input || !scalar_luma || !vbx_output || !scalar_output) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

#ifdef BUG_CACHED_INPUT_INIT
    init_image(scalar_input, IMAGE_WIDTH, IMAGE_HEIGHT, IMAGE_PITCH); /* cached, and never flushed */
#else
    init_image(input, IMAGE_WIDTH, IMAGE_HEIGHT, IMAGE_PITCH);
#endif

    double scalar_time = test_scalar(scalar_output, scalar_luma, scalar_input);
    int status = test_vector(vbx_output, input, scalar_time);

    int errors = compare_rgb(scalar_output, vbx_output, IMAGE_WIDTH, IMAGE_HEIGHT, IMAGE_PITCH);
    if (errors > MAX_PRINTED_ERRORS)
        printf("(%d more mismatches not printed)\n", errors - MAX_PRINTED_ERRORS);
    if (status != VBW_SUCCESS && errors == 0)
        errors = 1;

    VBX_TEST_END(errors);
    return errors;
}

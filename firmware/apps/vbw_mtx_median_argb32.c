/*
 * vbw_mtx_median_argb32.c - port of the SDK benchmark vbw_mtx_median_argb32 (2018.08): a 3x3
 * median filter on each colour channel of a 540-row x 960-column aRGB image (32-bit pixels,
 * bytes b, g, r, a) stored with a pitch of 1920 pixels, in place. For y < 537 and x < 957 the
 * b, g and r bytes of pixel (y, x) become the medians of that channel over rows y .. y + 2,
 * columns x .. x + 2. Computed on the CPU (scalar_in, in place) and on the MXP (vbxware
 * vbw_mtx_median_ext_argb32 on vector_in, in place; it filters the alpha byte too, which
 * is 0 everywhere), then compared.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.7): two cached buffers (malloc:
 * scalar_in, scalar_out), then two shared ones (vbx_shared_malloc: vector_in, vector_out)
 * from the same heap, 4,147,200 bytes each. scalar_out and vector_out are only zeroed: their
 * one effect on the run is scalar_out's dirty tail, right before vector_in, which the
 * routine both DMA-reads and DMA-writes (its first band), unflushed. The routine ends with
 * the only vbx_sync(); the program then reads vector_in uncached.
 *
 * Injected-bug switches (files in bugs/): BUG_CACHED_VECTOR_IN (vector_in from malloc: the
 * cached image copy is never flushed before the DMA-ins read it, and the verification's
 * cached reads race with the DMA-outs that write it) and BUG_CACHED_OUT_OF_PLACE (the
 * routine writes into vector_out instead, which comes from malloc: its cached zeroing and
 * the verification's cached reads race with the DMA-outs). Building with OUT_OF_PLACE alone
 * (vector_out shared) is the race-free negative control.
 *
 * expect-exit: 0
 * qemu: skip (needs the MXP)
 * output: timing-dependent
 */
#include <stddef.h>
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include "vbx_copyright.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_median_argb32.h"

VBXCOPYRIGHT(test_mtx_median_argb32)

#define HEIGHT 540
#define WIDTH 960
#define PITCH 1920
#define FILTER_HEIGHT 3
#define FILTER_WIDTH 3
#define MAX_TAPS (FILTER_HEIGHT * FILTER_WIDTH)
#define SEED 0x090909

#define PRINT_ROWS 8
#define PRINT_COLS 8

#ifdef BUG_CACHED_OUT_OF_PLACE
#define OUT_OF_PLACE 1
#endif

/* An aRGB pixel as the scalar reference sees it (little-endian: b is the low byte). */
typedef struct {
    uint8_t b, g, r, a;
} pixel;

/*
 * The median (element of rank n / 2, n odd) of v[0 .. n - 1], by a partial selection sort
 * in place: pass j swaps every smaller later element into v[j]; after n / 2 passes the
 * median is the minimum of what is left.
 */
static uint8_t median_ubyte(uint8_t *v, int n)
{
    const int m = n / 2;

    for (int j = 0; j < m; j++) {
        for (int i = j + 1; i < n; i++) {
            if (v[i] < v[j]) {
                uint8_t t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
        }
    }
    uint8_t min = v[m];
    for (int i = m + 1; i < n; i++)
        if (v[i] < min)
            min = v[i];
    return min;
}

/* The median of one channel (byte offset in the pixel) over the window at corner. */
static uint8_t channel_median(const pixel *corner, int filter_height, int filter_width,
                              int pitch, size_t channel)
{
    uint8_t v[MAX_TAPS];
    int n = 0;

    for (int r = 0; r < filter_height; r++)
        for (int c = 0; c < filter_width; c++)
            v[n++] = ((const uint8_t *)&corner[r * pitch + c])[channel];
    return median_ubyte(v, n);
}

/*
 * The scalar reference, per colour channel; alpha is left alone. In place when output ==
 * input: pixel (l, k) is written after the last window that reads it (windows extend down
 * and right only).
 */
static void scalar_mtx_median_argb32(pixel *output, pixel *input, int filter_height,
                                     int filter_width, int image_height, int image_width,
                                     int pitch)
{
    for (int l = 0; l < image_height - filter_height; l++) {
        for (int k = 0; k < image_width - filter_width; k++) {
            const pixel *corner = &input[l * pitch + k];
            pixel *out = &output[l * pitch + k];
            uint8_t b = channel_median(corner, filter_height, filter_width, pitch,
                                       offsetof(pixel, b));
            uint8_t g = channel_median(corner, filter_height, filter_width, pitch,
                                       offsetof(pixel, g));
            uint8_t r = channel_median(corner, filter_height, filter_width, pitch,
                                       offsetof(pixel, r));
            out->b = b;
            out->g = g;
            out->r = r;
        }
    }
}

static void print_corner(const char *title, uint32_t *image)
{
    printf("\n%s (top-left %dx%d):\n", title, PRINT_ROWS, PRINT_COLS);
    test_print_hex_matrix_uword(image, PRINT_ROWS, PRINT_COLS, PITCH);
}

static double test_scalar(uint32_t *scalar_in)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_mtx_median_argb32((pixel *)scalar_in, (pixel *)scalar_in, FILTER_HEIGHT,
                             FILTER_WIDTH, HEIGHT, WIDTH, PITCH);
    time_stop = vbx_timestamp();

    print_corner("Scalar output", scalar_in);
    return vbx_print_scalar_time(time_start, time_stop);
}

static double test_vector(uint32_t *vector_out, uint32_t *vector_in, double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    int status = vbw_mtx_median_ext_argb32((unsigned *)vector_out, (unsigned *)vector_in,
                                           FILTER_HEIGHT, FILTER_WIDTH, HEIGHT, WIDTH, PITCH);
    time_stop = vbx_timestamp();

    if (status != VBW_SUCCESS)
        printf("vbw_mtx_median_ext_argb32 failed: %d\n", status);
    print_corner("Vector output", vector_out);
    return vbx_print_vector_time(time_start, time_stop, scalar_time);
}

/* Mismatches over the filtered pixels (the first rows x cols of each pitch-wide row). */
static int verify_output(uint32_t *scalar_out, uint32_t *vector_out, int rows, int cols)
{
    int errors = 0;

    for (int y = 0; y < rows; y++)
        errors += test_verify_array_uword(scalar_out + y * PITCH, vector_out + y * PITCH, cols);
    return errors;
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();
    printf("\nMedian filter test (argb32, per channel, in place): %dx%d filter, %dx%d image, "
           "pitch %d\n",
           FILTER_WIDTH, FILTER_HEIGHT, WIDTH, HEIGHT, PITCH);

    const int image_bytes = HEIGHT * PITCH * sizeof(uint32_t);

    uint32_t *scalar_in = malloc(image_bytes);
    uint32_t *scalar_out = malloc(image_bytes);
#ifdef BUG_CACHED_VECTOR_IN
    uint32_t *vector_in = malloc(image_bytes); /* cached, and never flushed */
#else
    uint32_t *vector_in = vbx_shared_malloc(image_bytes);
#endif
#ifdef BUG_CACHED_OUT_OF_PLACE
    uint32_t *vector_out = malloc(image_bytes); /* cached, and never flushed */
#else
    uint32_t *vector_out = vbx_shared_malloc(image_bytes);
#endif
    if (!scalar_in || !scalar_out || !vector_in || !vector_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_uword(scalar_out, HEIGHT * PITCH);
    test_zero_array_uword(vector_out, HEIGHT * PITCH);

    test_init_matrix_uword(scalar_in, HEIGHT, PITCH, SEED);
    test_copy_array_uword(vector_in, scalar_in, HEIGHT * PITCH);
    print_corner("Input", scalar_in);

    double scalar_time = test_scalar(scalar_in);
#ifdef OUT_OF_PLACE
    uint32_t *vector_result = vector_out;
#else
    uint32_t *vector_result = vector_in; /* in place, as the SDK test */
#endif
    test_vector(vector_result, vector_in, scalar_time);

    int errors = verify_output(scalar_in, vector_result, HEIGHT - FILTER_HEIGHT,
                               WIDTH - FILTER_WIDTH);
    VBX_TEST_END(errors);
    return 0;
}

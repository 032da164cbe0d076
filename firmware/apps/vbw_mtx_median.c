/*
 * vbw_mtx_median.c - port of the SDK benchmark vbw_mtx_median_t (2018.08), byte instance:
 * a 5x5 median filter over a 128-row x 256-column image of signed bytes stored with a pitch
 * of 512 bytes. Output pixel (y, x), for y < 123 and x < 251, is the median (13th smallest)
 * of the 25 bytes in rows y .. y + 4, columns x .. x + 4. Computed on the CPU (partial
 * selection sort) and on the MXP (vbxware vbw_mtx_median_ext_byte), then compared.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.6): two cached buffers (malloc:
 * scalar_in, scalar_out), then two shared ones (vbx_shared_malloc: vector_in, vector_out)
 * from the same heap, 64 KiB each. scalar_out (cached, right before vector_in) is zeroed
 * before vector_in is written (the scalar filter rewrites rows 0..122, not the tail); nothing
 * flushes it before the first band of vector_in is DMA'd in. The routine DMAs the image in and the
 * result out in bands (2-D DMAs) and ends with the only vbx_sync(); the program then reads
 * vector_out uncached.
 *
 * Injected-bug switches (files in bugs/): BUG_CACHED_VECTOR_OUT (vector_out from malloc:
 * its cached zeroing and the verification's cached reads race with the 2-D DMA-out) and
 * BUG_CACHED_VECTOR_IN (vector_in from malloc: the cached copy of the image is never
 * flushed before the 2-D DMA-in reads it).
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
#include "vbw_mtx_median.h"

VBXCOPYRIGHT(test_mtx_median)

#define HEIGHT 128
#define WIDTH 256
#define PITCH 512
#define FILTER_HEIGHT 5
#define FILTER_WIDTH 5
#define SEED (-2)

/* The printed corner starts at this row (the last rows of the computed output). */
#define PRINT_FIRST_ROW 110

/*
 * The median (element of rank n / 2, n odd) of v[0 .. n - 1], by a partial selection sort
 * in place: pass j swaps every smaller later element into v[j]; after n / 2 passes the
 * median is the minimum of what is left.
 */
static int8_t median_byte(int8_t *v, int n)
{
    const int m = n / 2;

    for (int j = 0; j < m; j++) {
        for (int i = j + 1; i < n; i++) {
            if (v[i] < v[j]) {
                int8_t t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
        }
    }
    int8_t min = v[m];
    for (int i = m + 1; i < n; i++)
        if (v[i] < min)
            min = v[i];
    return min;
}

/* The scalar reference: the same outputs as vbw_mtx_median_ext_byte. */
static void scalar_mtx_median_byte(int8_t *output, int8_t *input, int filter_height,
                                   int filter_width, int image_height, int image_width, int pitch)
{
    int8_t window[filter_height * filter_width];

    for (int l = 0; l < image_height - filter_height; l++) {
        for (int k = 0; k < image_width - filter_width; k++) {
            int n = 0;
            for (int r = 0; r < filter_height; r++)
                for (int c = 0; c < filter_width; c++)
                    window[n++] = input[(l + r) * pitch + k + c];
            output[l * pitch + k] = median_byte(window, n);
        }
    }
}

/* Rows PRINT_FIRST_ROW.. of an image, up to MAX_PRINT_LENGTH x MAX_PRINT_LENGTH. */
static void print_corner(const char *title, int8_t *image)
{
    printf("\n%s (rows %d.., columns 0..):\n", title, PRINT_FIRST_ROW);
    test_print_matrix_byte(image + PRINT_FIRST_ROW * PITCH, HEIGHT - PRINT_FIRST_ROW,
                           MIN(WIDTH, MAX_PRINT_LENGTH), PITCH);
}

static double test_scalar(int8_t *scalar_out, int8_t *scalar_in)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_mtx_median_byte(scalar_out, scalar_in, FILTER_HEIGHT, FILTER_WIDTH, HEIGHT, WIDTH,
                           PITCH);
    time_stop = vbx_timestamp();

    print_corner("Scalar output", scalar_out);
    return vbx_print_scalar_time(time_start, time_stop);
}

static double test_vector(int8_t *vector_out, int8_t *vector_in, double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    int status = vbw_mtx_median_ext_byte(vector_out, vector_in, FILTER_HEIGHT, FILTER_WIDTH,
                                         HEIGHT, WIDTH, PITCH);
    time_stop = vbx_timestamp();

    if (status != VBW_SUCCESS)
        printf("vbw_mtx_median_ext_byte failed: %d\n", status);
    print_corner("Vector output", vector_out);
    return vbx_print_vector_time(time_start, time_stop, scalar_time);
}

/* Mismatches over the computed outputs (the first rows x cols of each pitch-wide row). */
static int verify_output(int8_t *scalar_out, int8_t *vector_out, int rows, int cols)
{
    int errors = 0;

    for (int y = 0; y < rows; y++)
        errors += test_verify_array_byte(scalar_out + y * PITCH, vector_out + y * PITCH, cols);
    return errors;
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();
    printf("\nMedian filter test (bytes): %dx%d filter, %dx%d image, pitch %d\n", FILTER_WIDTH,
           FILTER_HEIGHT, WIDTH, HEIGHT, PITCH);

    const int image_bytes = HEIGHT * PITCH * sizeof(int8_t);

    int8_t *scalar_in = malloc(image_bytes);
    int8_t *scalar_out = malloc(image_bytes);
#ifdef BUG_CACHED_VECTOR_IN
    int8_t *vector_in = malloc(image_bytes); /* cached, and never flushed */
#else
    int8_t *vector_in = vbx_shared_malloc(image_bytes);
#endif
#ifdef BUG_CACHED_VECTOR_OUT
    int8_t *vector_out = malloc(image_bytes); /* cached, and never flushed */
#else
    int8_t *vector_out = vbx_shared_malloc(image_bytes);
#endif
    if (!scalar_in || !scalar_out || !vector_in || !vector_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_byte(scalar_out, HEIGHT * PITCH);
    test_zero_array_byte(vector_out, HEIGHT * PITCH);

    test_init_matrix_byte(scalar_in, HEIGHT, PITCH, SEED);
    test_copy_array_byte(vector_in, scalar_in, HEIGHT * PITCH);
    print_corner("Input", scalar_in);

    double scalar_time = test_scalar(scalar_out, scalar_in);
    test_vector(vector_out, vector_in, scalar_time);

    int errors = verify_output(scalar_out, vector_out, HEIGHT - FILTER_HEIGHT,
                               WIDTH - FILTER_WIDTH);
    VBX_TEST_END(errors);
    return 0;
}

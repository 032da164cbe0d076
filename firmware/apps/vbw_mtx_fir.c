/*
 * vbw_mtx_fir.c - port of the SDK benchmark vbw_mtx_fir_t (2018.08): a 3x3 FIR filter of a
 * 256x256 signed-byte image with 32-bit coefficients, on the CPU (scalar_mtx_2Dfir_byte) and
 * on the MXP (vbxware vbw_mtx_2Dfir_byte), compared over the 253x253 outputs both compute:
 * out[l][k] = (sum over j, i < 3 of in[l + j][k + i] * filt[j][i]) >> 8, truncated to 8 bits.
 * Image: the 8-bit LFSR of test_init_array seeded 1; coefficients: the same seeded 1, as words.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.5): cached and shared buffers alternate
 * in one heap (scalar_in, vector_in, scalar_filt, vector_filt, scalar_out, vector_out). Both
 * outputs are zeroed first, then each input is generated into its cached buffer and copied
 * into its shared one; nothing is flushed. The routine streams vector_in in by rows and
 * vector_out out by rows while the CPU reads every coefficient from vector_filt (uncached) as
 * it issues the instructions; it ends with a vbx_sync(), the only one. No frees.
 *
 * Injected-bug switches (apps/bugs/): BUG_CACHED_VECTOR_IN (vector_in from malloc: its cached
 * copy races with the DMA-ins that read it) and BUG_NO_ROUTINE_SYNC (in vbxware/vbw_mtx_fir.cpp:
 * no vbx_sync() at the end of the routine, so printing and verifying vector_out race with its
 * DMA-outs). A cached vector_filt would be race-free (only the CPU reads it).
 *
 * expect-exit: 0
 * qemu: skip (needs the MXP)
 * output: timing-dependent
 * cache: max-line 32 (with 64-byte lines the original's own race -- scalar_in's tail line written
 *     back over vector_in's head -- corrupts the output: README, "SDK programs")
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include "vbx_copyright.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_fir.h"

VBXCOPYRIGHT(test_mtx_fir)

#define NUM_ROW 256
#define NUM_COLUMN 256
#define NTAPS_ROW 3
#define NTAPS_COLUMN 3
#define IMAGE_SEED 1
#define FILTER_SEED 1
#define FIR_SHIFT 8 /* the sums are scaled back to the byte range */

#define PRINT_ROWS 16
#define PRINT_COLS 16

/* The scalar reference: the rows and columns whose taps lie inside the image, except the
 * last of each (num_row - ntaps_row rows of num_column - ntaps_column outputs, as the
 * original); 32-bit sums. */
static void scalar_mtx_2Dfir_byte(int8_t *output, int8_t *input, int32_t *coeffs, int num_row,
                                  int num_column, int ntaps_row, int ntaps_column)
{
    for (int l = 0; l < num_row - ntaps_row; l++) {
        for (int k = 0; k < num_column - ntaps_column; k++) {
            int32_t sum = 0;
            for (int j = 0; j < ntaps_row; j++)
                for (int i = 0; i < ntaps_column; i++)
                    sum += input[(l + j) * num_column + k + i] * coeffs[j * ntaps_column + i];
            output[l * num_column + k] = (int8_t)(sum >> FIR_SHIFT);
        }
    }
}

static double test_scalar(int8_t *scalar_out, int8_t *scalar_in, int32_t *scalar_filt)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_mtx_2Dfir_byte(scalar_out, scalar_in, scalar_filt, NUM_ROW, NUM_COLUMN, NTAPS_ROW,
                          NTAPS_COLUMN);
    time_stop = vbx_timestamp();

    printf("\nScalar output (top-left %dx%d):\n", PRINT_ROWS, PRINT_COLS);
    test_print_matrix_byte(scalar_out, PRINT_ROWS, PRINT_COLS, NUM_COLUMN);
    return vbx_print_scalar_time(time_start, time_stop);
}

static void test_vector(int8_t *vector_out, int8_t *vector_in, int32_t *vector_filt,
                        double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    /* The routine ends with the vbx_sync() that completes vector_out. */
    vbw_mtx_2Dfir_byte(vector_out, vector_in, vector_filt, NUM_ROW, NUM_COLUMN, NTAPS_ROW,
                       NTAPS_COLUMN);
    time_stop = vbx_timestamp();

    printf("\nVector output (top-left %dx%d):\n", PRINT_ROWS, PRINT_COLS);
    test_print_matrix_byte(vector_out, PRINT_ROWS, PRINT_COLS, NUM_COLUMN);
    vbx_print_vector_time(time_start, time_stop, scalar_time);
}

/* Compares the outputs both sides compute, row by row. */
static int verify_outputs(int8_t *scalar_out, int8_t *vector_out)
{
    int errors = 0;
    for (int l = 0; l < NUM_ROW - NTAPS_ROW; l++)
        errors += test_verify_array_byte(scalar_out + l * NUM_COLUMN, vector_out + l * NUM_COLUMN,
                                         NUM_COLUMN - NTAPS_COLUMN);
    return errors;
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();
    printf("\n2D FIR test: %dx%d image (bytes), %dx%d filter (words), >> %d\n", NUM_ROW,
           NUM_COLUMN, NTAPS_ROW, NTAPS_COLUMN, FIR_SHIFT);

    const int image_size = NUM_ROW * NUM_COLUMN;
    const int filter_size = NTAPS_ROW * NTAPS_COLUMN;

    int8_t *scalar_in = (int8_t *)malloc(image_size * sizeof(int8_t));
#ifdef BUG_CACHED_VECTOR_IN
    int8_t *vector_in = (int8_t *)malloc(image_size * sizeof(int8_t)); /* cached, and never flushed */
#else
    int8_t *vector_in = (int8_t *)vbx_shared_malloc(image_size * sizeof(int8_t));
#endif
    int32_t *scalar_filt = (int32_t *)malloc(filter_size * sizeof(int32_t));
    int32_t *vector_filt = (int32_t *)vbx_shared_malloc(filter_size * sizeof(int32_t));
    int8_t *scalar_out = (int8_t *)malloc(image_size * sizeof(int8_t));
    int8_t *vector_out = (int8_t *)vbx_shared_malloc(image_size * sizeof(int8_t));

    if (!scalar_in || !vector_in || !scalar_filt || !vector_filt || !scalar_out || !vector_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_byte(scalar_out, image_size);
    test_zero_array_byte(vector_out, image_size);

    test_init_array_byte(scalar_in, image_size, IMAGE_SEED);
    test_copy_array_byte(vector_in, scalar_in, image_size);
    test_init_array_word(scalar_filt, filter_size, FILTER_SEED);
    test_copy_array_word(vector_filt, scalar_filt, filter_size);

    printf("\nInput (top-left %dx%d):\n", PRINT_ROWS, PRINT_COLS);
    test_print_matrix_byte(scalar_in, PRINT_ROWS, PRINT_COLS, NUM_COLUMN);
    printf("\nFilter:\n");
    test_print_matrix_word(scalar_filt, NTAPS_ROW, NTAPS_COLUMN, NTAPS_COLUMN);

    double scalar_time = test_scalar(scalar_out, scalar_in, scalar_filt);
    test_vector(vector_out, vector_in, vector_filt, scalar_time);

    int errors = verify_outputs(scalar_out, vector_out);

    VBX_TEST_END(errors);
    return 0;
}

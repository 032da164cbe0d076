/*
 * vbw_mtx_motest.c - port of the SDK benchmark vbw_mtx_motest (2018.08): block-matching motion
 * estimation. For a 16x16 reference block at the origin of a 256x256 byte image and a 64x64
 * search range it computes the sum of absolute differences against every offset, on the CPU
 * (scalar_mtx_motest_byte) and on the MXP (vbxware vbw_mtx_motest_byte), and compares the
 * 64x64 results. The image is both the block source and the search image; only its 80x80
 * top-left corner is initialised and read.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.4): the shared buffers (vbx_shared_malloc)
 * are allocated first, the cached ones (malloc) right after them in the same heap; the cached
 * initialisation starts with scalar_x_input's first row, and nothing flushes it before the
 * DMA-out of vector_result, whose tail may share that line. Syncs: after the vector routine
 * (timed) and again before the comparison; none inside the routine.
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
#include "vbw_mtx_motest.h"

VBXCOPYRIGHT(test_mtx_motest)

#define IMAGE_WIDTH 256
#define IMAGE_HEIGHT 256
#define BLOCK_WIDTH 16
#define BLOCK_HEIGHT 16
#define SEARCH_WIDTH 64
#define SEARCH_HEIGHT 64

#define PRINT_ROWS 8
#define PRINT_COLS 8

/*
 * The test image and an empty result: each row of the block + search window starts with
 * its row number + 1, and each following pixel is the previous one shifted left (7-bit
 * mask) with the xor of its bits 7, 5, 4 and 3 shifted in. Then all results are zeroed.
 */
static void init_motest(input_type *x, output_type *result, const vbw_motest_t *m)
{
    const int rows = m->block_height + m->search_height;
    const int cols = m->block_width + m->search_width;

    for (int j = 0; j < rows; j++) {
        input_type *row = x + j * m->image_width;
        row[0] = (input_type)(j + 1);
        for (int i = 1; i < cols; i++) {
            unsigned p = row[i - 1];
            unsigned bit = ((p >> 7) ^ (p >> 5) ^ (p >> 4) ^ (p >> 3)) & 1u;
            row[i] = (input_type)(bit | ((p << 1) & 0x7Eu));
        }
    }
    for (int i = 0; i < m->search_height * m->search_width; i++)
        result[i] = 0;
}

/* The scalar reference: result[l * search_width + k] = the SAD of the block_height x
 * block_width block at x's origin against y at row l, column k (the SDK's argument order). */
static void scalar_mtx_motest_byte(output_type *result, input_type *x, input_type *y,
                                   const int search_height, const int search_width,
                                   const int block_height, const int block_width,
                                   const int image_width)
{
    for (int l = 0; l < search_height; l++) {
        for (int k = 0; k < search_width; k++) {
            output_type sum = 0;
            for (int j = 0; j < block_height; j++) {
                for (int i = 0; i < block_width; i++) {
                    int a = x[j * image_width + i];
                    int b = y[(l + j) * image_width + k + i];
                    sum += (output_type)(a > b ? a - b : b - a);
                }
            }
            result[l * search_width + k] = sum;
        }
    }
}

/* The same with m's shape (declared in vbw_mtx_motest.h, as in the SDK). */
void vbw_mtx_motest_scalar_byte(output_type *result, input_type *x, input_type *y, vbw_motest_t *m)
{
    scalar_mtx_motest_byte(result, x, y, m->search_height, m->search_width, m->block_height,
                           m->block_width, m->image_width);
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();
    printf("\nMotion estimation test: %dx%d block, %dx%d search range, %dx%d image\n", BLOCK_WIDTH,
           BLOCK_HEIGHT, SEARCH_WIDTH, SEARCH_HEIGHT, IMAGE_WIDTH, IMAGE_HEIGHT);

    vbw_motest_t m = {
        .image_width = IMAGE_WIDTH,
        .image_height = IMAGE_HEIGHT,
        .block_width = BLOCK_WIDTH,
        .block_height = BLOCK_HEIGHT,
        .search_width = SEARCH_WIDTH,
        .search_height = SEARCH_HEIGHT,
    };
    const int image_bytes = IMAGE_WIDTH * IMAGE_HEIGHT * sizeof(input_type);
    const int result_bytes = SEARCH_WIDTH * SEARCH_HEIGHT * sizeof(output_type);
    vbx_timestamp_t time_start, time_stop;

    input_type *vector_x_input = vbx_shared_malloc(image_bytes);
#ifdef BUG_CACHED_RESULT
    output_type *vector_result = malloc(result_bytes); /* cached, and never flushed */
#else
    output_type *vector_result = vbx_shared_malloc(result_bytes);
#endif
    if (!vector_x_input || !vector_result) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }
    init_motest(vector_x_input, vector_result, &m);
    printf("\nInput image (top-left %dx%d):\n", PRINT_ROWS, PRINT_COLS);
    test_print_matrix_ubyte(vector_x_input, PRINT_ROWS, PRINT_COLS, IMAGE_WIDTH);

    input_type *scalar_x_input = malloc(image_bytes);
    output_type *scalar_result = malloc(result_bytes);
    if (!scalar_x_input || !scalar_result) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }
    init_motest(scalar_x_input, scalar_result, &m);

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    vbw_mtx_motest_scalar_byte(scalar_result, scalar_x_input, scalar_x_input, &m);
    time_stop = vbx_timestamp();
    printf("\nScalar SADs (top-left %dx%d):\n", PRINT_ROWS, PRINT_COLS);
    test_print_matrix_uword((uint32_t *)scalar_result, PRINT_ROWS, PRINT_COLS, SEARCH_WIDTH);
    double scalar_time = vbx_print_scalar_time(time_start, time_stop);

    vbx_sp_push();
    int status = vbw_mtx_motest_byte_setup(&m);
    if (status != VBW_SUCCESS) {
        printf("\nvbw_mtx_motest_byte_setup failed: %d\n", status);
        vbx_sp_pop();
        VBX_TEST_END(1);
        return 1;
    }

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    vbw_mtx_motest_byte(vector_result, vector_x_input, vector_x_input, &m);
#ifndef BUG_NO_FIRST_SYNC
    vbx_sync();
#endif
    time_stop = vbx_timestamp();
    printf("\nVector SADs (top-left %dx%d):\n", PRINT_ROWS, PRINT_COLS);
    test_print_matrix_uword((uint32_t *)vector_result, PRINT_ROWS, PRINT_COLS, SEARCH_WIDTH);
    vbx_print_vector_time(time_start, time_stop, scalar_time);

    vbx_sync();
    int errors = test_verify_array_uword((uint32_t *)scalar_result, (uint32_t *)vector_result,
                                         SEARCH_WIDTH * SEARCH_HEIGHT);
    vbx_sp_pop();

    VBX_TEST_END(errors);
    return 0;
}

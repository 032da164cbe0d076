/*
 * vbw_mtx_xp.c - port of the SDK benchmark vbw_mtx_xp_t (2018.08): a sweep of signed byte
 * matrix transposes, out[j * M + i] = in[i * N + j], over the 691 shapes M x N (M, N <= 512)
 * with M a multiple of 131, a multiple of 7 up to 128, below 10 or a power of two, and N a
 * multiple of 239, a multiple of 7 up to 128 (when M <= 128), below 10 (when M < 10) or equal
 * to M. Each shape is transposed on the CPU (scalar_mtx_xp_byte) and on the MXP (vbxware
 * vbw_mtx_xp_ext_byte), timed, and compared.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.9): scalar_in, scalar_out (malloc), then
 * vector_in, vector_out (vbx_shared_malloc), 512 x 512 bytes each, in that order in one heap.
 * scalar_out is zeroed (cached) before vector_in is written (uncached copy of scalar_in).
 * Every shape starts with vbx_dcache_flush_all(), a real write-back + invalidate and the only
 * cache maintenance of the program; then the CPU transposes reading vector_in uncached into
 * scalar_out, syncs, runs the routine (which syncs at its end on the MXP paths), syncs again,
 * and compares scalar_out (cached) with vector_out (uncached). No frees.
 *
 * Injected-bug switches (files in bugs/): BUG_NO_ROUTINE_SYNC (no sync at the routine's end
 * nor after it: the comparison races the DMA-out), BUG_CACHED_VECTOR_OUT (vector_out from malloc: lines of it
 * may be fetched into the cache after a shape's flush and before its DMA-out). Two changes
 * are deliberately NOT bug files, because neither is a race with 16-byte lines: deleting the
 * flush (the dirty scalar_out tail then overlaps vector_in's DMA-ins only when a cache line
 * spans both buffers, i.e. with lines longer than the 16-byte padding), and vector_in from
 * malloc (the flush at the start of each shape writes the copy back before any DMA reads it).
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
#include "vbw_mtx_xp.h"

VBXCOPYRIGHT(test_mtx_xp)

#define MAX_ROWS 512
#define MAX_COLS 512
#define SEED 1

static int is_power_of_two(int v)
{
    return (v & (v - 1)) == 0;
}

/* The row counts of the sweep. */
static int selected_rows(int m)
{
    return m % 131 == 0 || (m % 7 == 0 && m <= 128) || m < 10 || is_power_of_two(m);
}

/* The column counts of the sweep for m rows. */
static int selected_cols(int m, int n)
{
    return n % 239 == 0 || (n % 7 == 0 && n <= 128 && m <= 128) || (n < 10 && m < 10) || n == m;
}

/* The scalar reference. */
static void scalar_mtx_xp_byte(int8_t *out, const int8_t *in, int rows, int cols)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[j * rows + i] = in[i * cols + j];
}

static vbx_timestamp_t time_scalar(int8_t *scalar_out, const int8_t *vector_in, int rows, int cols)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_mtx_xp_byte(scalar_out, vector_in, rows, cols);
    time_stop = vbx_timestamp();
    return time_stop - time_start;
}

static vbx_timestamp_t time_vector(int8_t *vector_out, int8_t *vector_in, int rows, int cols)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    int status = vbw_mtx_xp_ext_byte(vector_out, vector_in, rows, cols);
#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    time_stop = vbx_timestamp();
    if (status != VBW_SUCCESS)
        printf("vbw_mtx_xp_ext_byte failed: %d\n", status);
    return time_stop - time_start;
}

/* One shape of the sweep: both transposes, one timing line, the number of mismatches. */
static int test_shape(int8_t *scalar_out, int8_t *vector_out, int8_t *vector_in, int rows, int cols)
{
    vbx_dcache_flush_all();
    vbx_timestamp_t scalar_cycles = time_scalar(scalar_out, vector_in, rows, cols);
    vbx_sync();
    vbx_timestamp_t vector_cycles = time_vector(vector_out, vector_in, rows, cols);

    double speedup = (double)scalar_cycles / (double)(vector_cycles ? vector_cycles : 1);
    printf("%3d x %3d: scalar %8llu cycles, vector %8llu cycles, speedup %s\n", rows, cols,
           (unsigned long long)vbx_mxp_cycles(scalar_cycles),
           (unsigned long long)vbx_mxp_cycles(vector_cycles), vbx_eng(speedup, 4));
    return test_verify_array_byte(scalar_out, vector_out, rows * cols);
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();

    const int max_elements = MAX_ROWS * MAX_COLS;
    printf("\nMatrix transpose test (bytes): shapes up to %dx%d\n", MAX_ROWS, MAX_COLS);
    printf("Free scratchpad: %d bytes\n\n", vbx_sp_getfree());

    int8_t *scalar_in = (int8_t *)malloc(max_elements * sizeof(int8_t));
    int8_t *scalar_out = (int8_t *)malloc(max_elements * sizeof(int8_t));
    int8_t *vector_in = (int8_t *)vbx_shared_malloc(max_elements * sizeof(int8_t));
#ifdef BUG_CACHED_VECTOR_OUT
    int8_t *vector_out = (int8_t *)malloc(max_elements * sizeof(int8_t)); /* cached, and never invalidated */
#else
    int8_t *vector_out = (int8_t *)vbx_shared_malloc(max_elements * sizeof(int8_t));
#endif
    if (!scalar_in || !scalar_out || !vector_in || !vector_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_byte(scalar_out, max_elements);
    test_zero_array_byte(vector_out, max_elements);
    test_init_array_byte(scalar_in, max_elements, SEED);
    test_copy_array_byte(vector_in, scalar_in, max_elements);

    int errors = 0, shapes = 0;
    long elements = 0;
    for (int rows = 1; rows <= MAX_ROWS; rows++) {
        if (!selected_rows(rows))
            continue;
        for (int cols = 1; cols <= MAX_COLS; cols++) {
            if (!selected_cols(rows, cols))
                continue;
            errors += test_shape(scalar_out, vector_out, vector_in, rows, cols);
            shapes++;
            elements += (long)rows * cols;
        }
    }
    printf("\n%d shapes, %ld elements transposed\n", shapes, elements);

    VBX_TEST_END(errors);
    return 0;
}

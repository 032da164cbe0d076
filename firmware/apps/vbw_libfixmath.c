/*
 * vbw_libfixmath.c - port of the SDK benchmark vbw_libfixmath (2018.08): Q16.16 square root
 * and division of N = 1000 numbers on the CPU (libfixmath's fix16_sqrt and fix16_div, here
 * vbxware/fix16_scalar.c) and on the MXP in software (vbxware vbw_fix16_sqrt and
 * vbw_fix16_div), checked by range: the square roots may differ by 256 (1/256), the
 * quotients by 1 (2^-16). Input 1 counts from -32.0 in steps of 3.0 and input 2 from 3200.0
 * in steps of 11.0, each step one LSB more (the harness's inc-array quirk); the test takes
 * sqrt(input 2) and input 2 / input 1. Left out: the SDK's custom-instruction variants
 * (VCUSTOM0/1), which run only outside the vendor simulator, and the latencies the original
 * computes for them and never uses.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.3): three cached buffers (malloc), then
 * three shared ones (vbx_shared_malloc) from the same heap, all 4000 bytes; scalar_out
 * (cached) is zeroed before vector_in1 is written, and nothing flushes it before vector_in1
 * is DMA'd in. Syncs: after both DMAs in; after each routine's DMA-out (timed, before the
 * CPU reads vector_out); none inside the routines.
 *
 * Injected-bug switches (files in bugs/): BUG_NO_SQRT_SYNC / BUG_NO_DIV_SYNC (no sync after
 * the square root's / the division's DMA-out), BUG_CACHED_VECTOR_IN1 (vector_in1 from
 * malloc, never flushed).
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
#include "vbw_fix16.h"
#include "fix16_scalar.h"

VBXCOPYRIGHT(test_libfixmath)

#define N 1000
/* Largest accepted difference between the scalar and the vector results, in LSBs. */
#define SQRT_RANGE 256
#define DIV_RANGE 1

/* Prints the first outputs of a run and its time. */
static double report_scalar(int32_t *out, int n, vbx_timestamp_t start, vbx_timestamp_t stop)
{
    printf("\nScalar output:\n");
    test_print_array_word(out, MIN(n, MAX_PRINT_LENGTH));
    return vbx_print_scalar_time(start, stop);
}

static void report_vector(int32_t *out, int n, vbx_timestamp_t start, vbx_timestamp_t stop,
                          double scalar_time)
{
    printf("\nVector output:\n");
    test_print_array_word(out, MIN(n, MAX_PRINT_LENGTH));
    vbx_print_vector_time(start, stop, scalar_time);
}

/* scalar_out = fix16_sqrt(scalar_in), timed. */
static double scalar_sqrt(int32_t *scalar_out, int32_t *scalar_in, int n)
{
    vbx_timestamp_start();
    vbx_timestamp_t start = vbx_timestamp();
    for (int i = 0; i < n; i++)
        scalar_out[i] = fix16_sqrt(scalar_in[i]);
    vbx_timestamp_t stop = vbx_timestamp();
    return report_scalar(scalar_out, n, start, stop);
}

/* scalar_out = fix16_div(scalar_a, scalar_b), timed. */
static double scalar_div(int32_t *scalar_out, int32_t *scalar_a, int32_t *scalar_b, int n)
{
    vbx_timestamp_start();
    vbx_timestamp_t start = vbx_timestamp();
    for (int i = 0; i < n; i++)
        scalar_out[i] = fix16_div(scalar_a[i], scalar_b[i]);
    vbx_timestamp_t stop = vbx_timestamp();
    return report_scalar(scalar_out, n, start, stop);
}

/* Square roots of input 2 (in the scratchpad as v_in); returns the out-of-range count. */
static int test_sqrt(int32_t *scalar_out, int32_t *scalar_in, int32_t *vector_out, vbx_word_t *v_out,
                     vbx_word_t *v_in, int n)
{
    printf("\nSquare root of input 2\n");
    double scalar_time = scalar_sqrt(scalar_out, scalar_in, n);

    vbx_timestamp_start();
    vbx_timestamp_t start = vbx_timestamp();
    vbw_fix16_sqrt(v_out, v_in, n);
    vbx_dma_to_host(vector_out, v_out, n * sizeof(int32_t));
#ifndef BUG_NO_SQRT_SYNC
    vbx_sync();
#endif
    vbx_timestamp_t stop = vbx_timestamp();

    report_vector(vector_out, n, start, stop, scalar_time);
    return test_range_array_word(scalar_out, vector_out, n, SQRT_RANGE);
}

/* Input 2 / input 1 (in the scratchpad as v_a, v_b); returns the out-of-range count. */
static int test_div(int32_t *scalar_out, int32_t *scalar_a, int32_t *scalar_b, int32_t *vector_out,
                    vbx_word_t *v_out, vbx_word_t *v_a, vbx_word_t *v_b, int n)
{
    printf("\nInput 2 / input 1\n");
    double scalar_time = scalar_div(scalar_out, scalar_a, scalar_b, n);

    vbx_timestamp_start();
    vbx_timestamp_t start = vbx_timestamp();
    vbw_fix16_div(v_out, v_a, v_b, n);
    vbx_dma_to_host(vector_out, v_out, n * sizeof(int32_t));
#ifndef BUG_NO_DIV_SYNC
    vbx_sync();
#endif
    vbx_timestamp_t stop = vbx_timestamp();

    report_vector(vector_out, n, start, stop, scalar_time);
    return test_range_array_word(scalar_out, vector_out, n, DIV_RANGE);
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();

    printf("\nlibfixmath test (Q16.16 square root and division)\n");
    printf("Vector length: %d\n", N);

    int32_t *scalar_in1 = malloc(N * sizeof(int32_t));
    int32_t *scalar_in2 = malloc(N * sizeof(int32_t));
    int32_t *scalar_out = malloc(N * sizeof(int32_t));

#ifdef BUG_CACHED_VECTOR_IN1
    int32_t *vector_in1 = malloc(N * sizeof(int32_t)); /* cached, and never flushed */
#else
    int32_t *vector_in1 = vbx_shared_malloc(N * sizeof(int32_t));
#endif
    int32_t *vector_in2 = vbx_shared_malloc(N * sizeof(int32_t));
    int32_t *vector_out = vbx_shared_malloc(N * sizeof(int32_t));

    vbx_word_t *v_in1 = vbx_sp_malloc(N * sizeof(vbx_word_t));
    vbx_word_t *v_in2 = vbx_sp_malloc(N * sizeof(vbx_word_t));
    vbx_word_t *v_out = vbx_sp_malloc(N * sizeof(vbx_word_t));

    if (!scalar_in1 || !scalar_in2 || !scalar_out || !vector_in1 || !vector_in2 || !vector_out ||
        !v_in1 || !v_in2 || !v_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_word(scalar_out, N);
    test_zero_array_word(vector_out, N);

    test_inc_array_word(scalar_in1, N, fix16_from_int(-32), fix16_from_int(3));
    test_copy_array_word(vector_in1, scalar_in1, N);
    test_inc_array_word(scalar_in2, N, fix16_from_int(3200), fix16_from_int(11));
    test_copy_array_word(vector_in2, scalar_in2, N);

    printf("\nInput 1:\n");
    test_print_array_word(scalar_in1, MIN(N, MAX_PRINT_LENGTH));
    printf("\nInput 2:\n");
    test_print_array_word(scalar_in2, MIN(N, MAX_PRINT_LENGTH));

    vbx_dma_to_vector(v_in1, vector_in1, N * sizeof(int32_t));
    vbx_dma_to_vector(v_in2, vector_in2, N * sizeof(int32_t));
    vbx_sync();

    int errors = test_sqrt(scalar_out, scalar_in2, vector_out, v_out, v_in2, N);
    errors += test_div(scalar_out, scalar_in2, scalar_in1, vector_out, v_out, v_in2, v_in1, N);

    VBX_TEST_END(errors);
    return 0;
}

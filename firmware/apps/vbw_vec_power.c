/*
 * vbw_vec_power.c - port of the SDK benchmark vbw_vec_power_t (2018.08): raises N = 1024
 * signed 32-bit bases to signed 32-bit exponents, element-wise with wrap-around
 * multiplication, on the CPU (square-and-multiply) and on the MXP (vbxware
 * vbw_vec_power_word), and compares them exactly. Bases are the 8-bit LFSR sequence from
 * seed 5, exponents the one from seed 112 (all in 1..255). The original first derives a
 * length from the scratchpad size (size / 4 / 12) and then overrides it with 1024; only 1024
 * is used, so the port leaves the unused value out.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.2, the same as vbw_vec_add): three cached
 * buffers (malloc), then three shared ones (vbx_shared_malloc) from the same heap; scalar_out
 * (cached) is zeroed before vector_in1 is written and written again by the scalar reference;
 * nothing flushes it before vector_in1 is DMA'd in. Syncs: inside the routine, one after
 * every fourth exponent bit but the last, before the CPU reads a count from the scratchpad
 * (the inputs' exponents, all below 256, end the loop after the second); after the
 * routine (timed); after the DMA-out.
 *
 * Injected-bug switches (files in bugs/): BUG_NO_LOOP_SYNC (no sync before the in-loop
 * scratchpad read; it lives in vbxware/vbw_vec_power.cpp, which that variant compiles in),
 * BUG_NO_FINAL_SYNC (no sync after the DMA-out), BUG_CACHED_VECTOR_OUT (vector_out from
 * malloc, never flushed or invalidated).
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
#include "vbw_vec_power.h"

VBXCOPYRIGHT(test_vec_power)

#define N 1024
#define SEED_BASE 5
#define SEED_EXPONENT 112

/* base^|exp| by square-and-multiply, in unsigned arithmetic: the product wraps to 32 bits
 * as the MXP's does (a signed overflow would be undefined in C). */
static int32_t scalar_power_word(int32_t base, int32_t exp)
{
    uint32_t result = 1, square = (uint32_t)base;
    uint32_t bits = exp < 0 ? 0u - (uint32_t)exp : (uint32_t)exp;

    for (; bits != 0; bits >>= 1) {
        if (bits & 1u)
            result *= square;
        square *= square;
    }
    return (int32_t)result;
}

/* The scalar reference: out[i] = in1[i] ^ |in2[i]| (the SDK's takes the exponent's absolute
 * value, while the vector routine gives 0 for a negative one; the inputs have none). */
static void scalar_vec_power_word(int32_t *out, int32_t *in1, int32_t *in2, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = scalar_power_word(in1[i], in2[i]);
}

static double test_scalar(int32_t *scalar_out, int32_t *scalar_in1, int32_t *scalar_in2, int n)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_vec_power_word(scalar_out, scalar_in1, scalar_in2, n);
    time_stop = vbx_timestamp();

    printf("\nScalar output:\n");
    test_print_array_word(scalar_out, MIN(n, MAX_PRINT_LENGTH));
    return vbx_print_scalar_time(time_start, time_stop);
}

/* Scratchpad vectors, both DMAs in, the routine (timed, up to its sync), the DMA out. */
static int test_vector(int32_t *vector_out, int32_t *vector_in1, int32_t *vector_in2, int n,
                       double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_word_t *v_out = (vbx_word_t *)vbx_sp_malloc(n * sizeof(vbx_word_t));
    vbx_word_t *v_in1 = (vbx_word_t *)vbx_sp_malloc(n * sizeof(vbx_word_t));
    vbx_word_t *v_in2 = (vbx_word_t *)vbx_sp_malloc(n * sizeof(vbx_word_t));
    if (!v_out || !v_in1 || !v_in2) {
        printf("\nScratchpad allocation failed\n");
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    vbx_dma_to_vector(v_in1, vector_in1, n * sizeof(int32_t));
    vbx_dma_to_vector(v_in2, vector_in2, n * sizeof(int32_t));

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    int status = vbw_vec_power_word(v_out, v_in1, v_in2, n);
    vbx_sync();
    time_stop = vbx_timestamp();

    vbx_dma_to_host(vector_out, v_out, n * sizeof(int32_t));
#ifndef BUG_NO_FINAL_SYNC
    vbx_sync();
#endif

    if (status != VBW_SUCCESS)
        printf("vbw_vec_power_word failed: %d\n", status);
    printf("\nVector output:\n");
    test_print_array_word(vector_out, MIN(n, MAX_PRINT_LENGTH));
    vbx_print_vector_time(time_start, time_stop, scalar_time);
    return status;
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();

    printf("\nVector power test (words)\n");
    printf("Vector length: %d\n", N);

    int32_t *scalar_in1 = (int32_t *)malloc(N * sizeof(int32_t));
    int32_t *scalar_in2 = (int32_t *)malloc(N * sizeof(int32_t));
    int32_t *scalar_out = (int32_t *)malloc(N * sizeof(int32_t));

    int32_t *vector_in1 = (int32_t *)vbx_shared_malloc(N * sizeof(int32_t));
    int32_t *vector_in2 = (int32_t *)vbx_shared_malloc(N * sizeof(int32_t));
#ifdef BUG_CACHED_VECTOR_OUT
    int32_t *vector_out = (int32_t *)malloc(N * sizeof(int32_t)); /* cached, never flushed or invalidated */
#else
    int32_t *vector_out = (int32_t *)vbx_shared_malloc(N * sizeof(int32_t));
#endif

    if (!scalar_in1 || !scalar_in2 || !scalar_out || !vector_in1 || !vector_in2 || !vector_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_word(scalar_out, N);
    test_zero_array_word(vector_out, N);

    test_init_array_word(scalar_in1, N, SEED_BASE);
    test_copy_array_word(vector_in1, scalar_in1, N);
    test_init_array_word(scalar_in2, N, SEED_EXPONENT);
    test_copy_array_word(vector_in2, scalar_in2, N);

    printf("\nBases:\n");
    test_print_array_word(scalar_in1, MIN(N, MAX_PRINT_LENGTH));
    printf("\nExponents:\n");
    test_print_array_word(scalar_in2, MIN(N, MAX_PRINT_LENGTH));

    double scalar_time = test_scalar(scalar_out, scalar_in1, scalar_in2, N);
    int errors = test_vector(vector_out, vector_in1, vector_in2, N, scalar_time) != VBW_SUCCESS;
    errors += test_verify_array_word(scalar_out, vector_out, N);

    VBX_TEST_END(errors);
    return 0;
}

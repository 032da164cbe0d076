/*
 * vbw_vec_add.c - port of the SDK benchmark vbw_vec_add_t as released in 2018.08 (the
 * version the LCTES'21 paper analysed): adds two signed byte vectors of N = scratchpad
 * size / 4 elements on the CPU and on the MXP (vbxware vbw_vec_add_byte) and compares.
 * Faithful to that release: both inputs are seeded 1 (identical arrays) and the second
 * DMA-in fetches vector_in1 again (vector_in2 is written but never read by the MXP); the
 * identical inputs hide that, so the test passes. vbw_vec_add_2021.c is the fixed version:
 * it defines VBW_VEC_ADD_2021 and includes this file. The injected-bug variants in bugs/
 * define BUG_NO_FINAL_SYNC (no sync after the DMA-out) or BUG_CACHED_VECTOR_IN1 (vector_in1
 * from malloc, never flushed) and include it too.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.1): three cached buffers (malloc), then
 * three shared ones (vbx_shared_malloc) from the same heap; scalar_out (cached) is zeroed
 * before vector_in1 is written and written again by the scalar reference; nothing flushes
 * it before vector_in1 is DMA'd in. Syncs: after the routine (timed) and after the DMA-out.
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
#include "vbw_vec_add.h"

/* Seeds of the two inputs (equal in the 2018 release) and the source of the second DMA-in
 * (vector_in1 again, as released in 2018). */
#define SEED_IN1 1
#ifdef VBW_VEC_ADD_2021
VBXCOPYRIGHT(test_vec_add_2021)
#define SEED_IN2 2
#define SECOND_DMA_SOURCE vector_in2
#else
VBXCOPYRIGHT(test_vec_add)
#define SEED_IN2 1
#define SECOND_DMA_SOURCE vector_in1
#endif

/* The scalar reference: out[i] = in1[i] + in2[i], wrapping to 8 bits. */
static void scalar_vec_add_byte(int8_t *out, int8_t *in1, int8_t *in2, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (int8_t)(in1[i] + in2[i]);
}

static double test_scalar(int8_t *scalar_out, int8_t *scalar_in1, int8_t *scalar_in2, int n)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    scalar_vec_add_byte(scalar_out, scalar_in1, scalar_in2, n);
    time_stop = vbx_timestamp();

    printf("\nScalar output:\n");
    test_print_array_byte(scalar_out, MIN(n, MAX_PRINT_LENGTH));
    return vbx_print_scalar_time(time_start, time_stop);
}

static double test_vector(vbx_byte_t *v_out, vbx_byte_t *v_in1, vbx_byte_t *v_in2, int8_t *vector_out,
                          int n, double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    /* As the SDK's test does, announced before the timer starts: the DMA-ins issued before
     * this call go on meanwhile, outside the timed region. */
    printf("\nExecuting MXP vector add...\n");
    vbx_timestamp_start();
    time_start = vbx_timestamp();
    int status = vbw_vec_add_byte(v_out, v_in1, v_in2, n);
    vbx_sync();
    time_stop = vbx_timestamp();

    vbx_dma_to_host(vector_out, v_out, n);
#ifndef BUG_NO_FINAL_SYNC
    vbx_sync();
#endif

    if (status != VBW_SUCCESS)
        printf("vbw_vec_add_byte failed: %d\n", status);
    printf("\nVector output:\n");
    test_print_array_byte(vector_out, MIN(n, MAX_PRINT_LENGTH));
    return vbx_print_vector_time(time_start, time_stop, scalar_time);
}

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();

    vbx_mxp_t *this_mxp = VBX_GET_THIS_MXP();
    const int required_vectors = 4;
    const int N = (int)(this_mxp->scratchpad_size / sizeof(vbx_byte_t) / required_vectors);

    printf("\nVector add test (bytes)\n");
    printf("Vector length: %d\n", N);

    int8_t *scalar_in1 = malloc(N * sizeof(int8_t));
    int8_t *scalar_in2 = malloc(N * sizeof(int8_t));
    int8_t *scalar_out = malloc(N * sizeof(int8_t));

#ifdef BUG_CACHED_VECTOR_IN1
    int8_t *vector_in1 = malloc(N * sizeof(int8_t)); /* cached, and never flushed */
#else
    int8_t *vector_in1 = vbx_shared_malloc(N * sizeof(int8_t));
#endif
    int8_t *vector_in2 = vbx_shared_malloc(N * sizeof(int8_t));
    int8_t *vector_out = vbx_shared_malloc(N * sizeof(int8_t));

    vbx_byte_t *v_in1 = vbx_sp_malloc(N * sizeof(vbx_byte_t));
    vbx_byte_t *v_in2 = vbx_sp_malloc(N * sizeof(vbx_byte_t));
    vbx_byte_t *v_out = vbx_sp_malloc(N * sizeof(vbx_byte_t));

    if (!scalar_in1 || !scalar_in2 || !scalar_out || !vector_in1 || !vector_in2 || !vector_out ||
        !v_in1 || !v_in2 || !v_out) {
        printf("\nAllocation failed\n");
        VBX_TEST_END(1);
        return 1;
    }

    test_zero_array_byte(scalar_out, N);
    test_zero_array_byte(vector_out, N);

    test_init_array_byte(scalar_in1, N, SEED_IN1);
    test_copy_array_byte(vector_in1, scalar_in1, N);
    test_init_array_byte(scalar_in2, N, SEED_IN2);
    test_copy_array_byte(vector_in2, scalar_in2, N);

    printf("\nInput 1:\n");
    test_print_array_byte(scalar_in1, MIN(N, MAX_PRINT_LENGTH));
    printf("\nInput 2:\n");
    test_print_array_byte(scalar_in2, MIN(N, MAX_PRINT_LENGTH));

    double scalar_time = test_scalar(scalar_out, scalar_in1, scalar_in2, N);

    vbx_dma_to_vector(v_in1, vector_in1, N * sizeof(int8_t));
    vbx_dma_to_vector(v_in2, SECOND_DMA_SOURCE, N * sizeof(int8_t));
    test_vector(v_out, v_in1, v_in2, vector_out, N, scalar_time);

    int errors = test_verify_array_byte(scalar_out, vector_out, N);

#ifdef BUG_CACHED_VECTOR_IN1
    free(vector_in1);
#else
    vbx_shared_free(vector_in1);
#endif
    vbx_shared_free(vector_in2);
    vbx_shared_free(vector_out);
    free(scalar_in1);
    free(scalar_in2);
    free(scalar_out);

    VBX_TEST_END(errors);
    return 0;
}

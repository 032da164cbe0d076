/*
 * vec_add.c - the smallest vbx program: add two 16-byte vectors on the CPU and on the MXP,
 * compare (the example of firmware/sdk/README.md).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16

int main(void)
{
    vbx_test_init();

    int8_t *scalar_in1 = malloc(N), *scalar_in2 = malloc(N), *scalar_out = malloc(N);
    int8_t *vector_in1 = vbx_shared_malloc(N), *vector_in2 = vbx_shared_malloc(N);
    int8_t *vector_out = vbx_shared_malloc(N);
    vbx_byte_t *v_in1 = vbx_sp_malloc(N), *v_in2 = vbx_sp_malloc(N), *v_out = vbx_sp_malloc(N);

    test_zero_array_byte(scalar_out, N);
    test_zero_array_byte(vector_out, N);
    test_init_array_byte(scalar_in1, N, 1);
    test_copy_array_byte(vector_in1, scalar_in1, N);
    test_init_array_byte(scalar_in2, N, 2);
    test_copy_array_byte(vector_in2, scalar_in2, N);
    test_print_array_byte(scalar_in1, N);
    test_print_array_byte(scalar_in2, N);

    for (int i = 0; i < N; i++)
        scalar_out[i] = (int8_t)(scalar_in1[i] + scalar_in2[i]);

    vbx_dma_to_vector(v_in1, vector_in1, N);
    vbx_dma_to_vector(v_in2, vector_in2, N);
    vbx_set_vl(N);
    vbx(VVB, VADD, v_out, v_in1, v_in2);
    vbx_dma_to_host(vector_out, v_out, N);
    vbx_sync();

    test_print_array_byte(scalar_out, N);
    test_print_array_byte(vector_out, N);
    int errors = test_verify_array_byte(scalar_out, vector_out, N);

    vbx_shared_free(vector_in1);
    vbx_shared_free(vector_in2);
    vbx_shared_free(vector_out);
    free(scalar_in1);
    free(scalar_in2);
    free(scalar_out);

    VBX_TEST_END(errors);
    return errors;
}

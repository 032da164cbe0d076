/*
 * compile.c - compile-only check (run-checks.sh): SDK-style code builds warning-free with the
 * project's flags. The template header comes FIRST here, so its object-like macros (T, B, H,
 * W, ...) are defined while the SDK headers are read, and vbx() sees template modes.
 */
#define VBX_TEMPLATE_T VBX_UBYTESIZE_DEF
#include "vbw_template_t.h"

#include "vbw_exit_codes.h"
#include "vbx.h"
#include "vbx_copyright.h"
#include "vbx_port.h"
#include "vbx_test.h"

VBXCOPYRIGHT(compile_check)

int VBX_T(vbw_example)(vbx_sp_t *v_out, vbx_sp_t *v_in, int n);
int VBX_T(vbw_example)(vbx_sp_t *v_out, vbx_sp_t *v_in, int n)
{
    vbx_sp_push();
    vbx_sp_t *tmp = vbx_sp_malloc(n * sizeof(vbx_sp_t));
    if (tmp == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_set_vl(n);
    vbx(VV(T), VADD, tmp, v_in, v_in);
    vbx(SV(T), VMUL, v_out, 3, tmp);
    vbx(SE(T), VAND, tmp, 0xf, 0);
    vbx(VS(T), VSHR, v_out, v_out, 1);
    vbx_acc(VV(WT), VADD, v_out, tmp, tmp);
    vbx_setup_mask(VV(T), VCMV_NZ, tmp);
    vbx_masked(VV(T), VMOV, v_out, tmp, 0);
    vbx_sp_pop();
    return VBW_SUCCESS;
}

int sdk_style(void);
int sdk_style(void)
{
    vbx_test_init();
    /* The ports' two calling forms (device names: RISC-V and Linux; none: ORCA and HPS). */
    if (VectorBlox_MXP_Initialize("mxp0", "cma") != 0 || VectorBlox_MXP_Initialize() != 0)
        VBX_TEST_FAIL(1);
    vbx_mxp_print_params();
    const int N = VBX_GET_THIS_MXP()->scratchpad_size / sizeof(vbx_word_t) / 8;
    vbx_word_t *v_a = vbx_sp_malloc(N * sizeof(vbx_word_t));
    vbx_word_t *v_b = (vbx_word_t *)vbx_sp_malloc(N * sizeof(vbx_word_t));
    int32_t *host = vbx_shared_malloc(N * sizeof(int32_t));
    int32_t *cached = vbx_remap_cached(host, N * sizeof(int32_t));
    unsigned char *bytes = vbx_shared_malloc(100);
    vbx_timestamp_t t0, t1;
    size_t len = 16;
    int vl, rows, mats;
    unsigned status;

    vbx_timestamp_start();
    t0 = vbx_timestamp();
    test_init_array_word(host, N, 1);
    vbx_dma_to_vector(v_a, host, N * sizeof(int32_t));
    vbx_dma_to_vector_2D(v_b, host, len, 4, len, -(int)len);
    vbx_set_vl(len);
    vbx_set_vl(4, 2);
    vbx_set_vl(N, 1, 1);
    vbx_set_2D(4, 0, -4);
    vbx_set_3D(0, 0, 0);
    vbx(SVW, VADD, v_b, -5, v_a);
    vbx(SVWWHU, VMULLO, v_b, 0x10101, v_a);
    vbx(VSW, VSUB, v_b, v_a, 7);
    vbx(VSWU, VSHR, v_b, v_a, 31);
    vbx(SEW, VMOV, v_b, 0, 0);
    vbx_acc(VVWBU, VABSDIFF, v_b, v_a, v_a);
    vbx_masked_acc(VVW, VADD, v_b, v_a, v_a);
    vbx_setup_mask_masked(SVWU, VCMV_GTZ, v_a);
    vinstr_t op = VCUSTOM1;
    vbx(VVW, op, v_b, v_a, 0);
    vbx(VVW, VCUSTOM0, v_b, v_a, v_b);
    vbx_dma_to_host(host, v_b, N * sizeof(vbx_word_t));
    vbx_dma_to_host_2D(host, v_b, 4, 8, 16, 0);
    vbx_sync();
    vbx_get_vl(&vl, &rows, &mats);
    vbx_get_mask_status(&status);
    vbx_dcache_flush_all();
    vbx_dcache_flush(cached, 64);
    t1 = vbx_timestamp();
    double s = vbx_print_scalar_time(t0, t1);
    vbx_print_vector_time(t0, t1, s);
    vbx_print_vector_time_per(t0, t1, (double)N, "element", s);
    int errors = test_verify_array_word(host, cached, N) + test_range_array_word(host, cached, N, 1);
    printf("%s %d %d %d %u %d\n", vbx_eng(s, 4), vl, rows, mats, status, VBX_PAD_UP(17, 16));
    VBX_PRINTF("%d\n", vbx_sp_getfree());
    vbx_shared_free(bytes);
    vbx_shared_free(host);
    vbx_sp_free();
    if (errors > 1000)
        VBX_FATAL(__LINE__, __FILE__, errors);
    VBX_TEST_END(errors);
    return errors;
}

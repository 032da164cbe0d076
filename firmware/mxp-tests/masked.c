/*
 * masked.c - masked execution (mxp-spec.md section 3.9): mask set-up from a VCMV test,
 * masked instructions and a masked accumulate, narrowing a mask with
 * vbx_setup_mask_masked, an empty mask, and the mask status (bit 31 = stale: set by reading
 * it, cleared when a set-up completes; bits 30..0 non-zero = some element enabled). The VL
 * stays 8 throughout (masked instructions run over the VL of the last set-up).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 8

static void show(const char *label, const vbx_word_t *p)
{
    printf("%-28s", label);
    for (int i = 0; i < N; i++)
        printf(" %ld", (long)p[i]);
    printf("\n");
}

static void status(const char *label)
{
    uint32_t s;
    vbx_get_mask_status(&s);
    printf("%s: stale %lu, non-empty %d\n", label, (unsigned long)(s >> 31), (s & 0x7fffffffu) != 0);
}

int main(void)
{
    vbx_test_init();
    static const int32_t init[N] = {0, 3, 0, 5, -1, 0, 7, 0};
    int32_t *h = vbx_shared_malloc(N * 4);
    for (int i = 0; i < N; i++)
        h[i] = init[i];
    vbx_word_t *v = vbx_sp_malloc(N * 4), *zeros = vbx_sp_malloc(N * 4), *out = vbx_sp_malloc(N * 4);
    vbx_word_t *sum = vbx_sp_malloc(N * 4), *out2 = vbx_sp_malloc(N * 4), *w2 = vbx_sp_malloc(N * 4);
    vbx_word_t *out3 = vbx_sp_malloc(N * 4);

    vbx_set_vl(N);
    vbx_dma_to_vector(v, h, N * 4);
    vbx(SEW, VMOV, zeros, 0, 0);
    vbx(SEW, VMOV, out, -1, 0);
    vbx(SEW, VMOV, out2, 9, 0);
    vbx(SEW, VMOV, out3, 1, 0);
    vbx(SEW, VMOV, sum, 0, 0);
    vbx(SEW, VADD, w2, 1, 0); /* 1..8 */

    vbx_setup_mask(VVW, VCMV_NZ, v);      /* mask 0 1 0 1 1 0 1 0 */
    vbx_masked(SVW, VADD, out, 100, v);   /* 100 + v where enabled */
    vbx_masked_acc(VVW, VADD, sum, v, zeros); /* 3 + 5 - 1 + 7 */
    vbx_sync();
    show("v", v);
    show("masked 100 + v", out);
    printf("masked sum: %ld\n", (long)sum[0]);
    status("status");
    status("status again");

    vbx_setup_mask_masked(VVW, VCMV_GTZ, v); /* and v > 0: 0 1 0 1 0 0 1 0 */
    vbx_masked(SVW, VMOV, out2, 0, v);
    vbx_sync();
    show("narrowed: 0 where enabled", out2);
    status("status after narrowing");

    vbx_setup_mask(VVW, VCMV_LTZ, w2); /* nothing enabled */
    vbx_masked(SVW, VMOV, out3, 55, w2);
    vbx_masked_acc(SVW, VADD, sum + 1, 1, w2);
    vbx_sync();
    show("empty mask: unchanged", out3);
    printf("empty masked sum: %ld\n", (long)sum[1]);
    status("status of the empty mask");

    int errors = (sum[0] != 14) + (out[1] != 103) + (out[0] != -1) + (out2[1] != 0) + (out2[4] != 9) +
                 (out3[0] != 1) + (sum[1] != 0);
    VBX_TEST_END(errors);
    return errors;
}

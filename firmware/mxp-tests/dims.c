/*
 * dims.c - 2D and 3D instructions (mxp-spec.md sections 1.3 and 3.8): an accumulate per row
 * (row sums 6 38 70), rows walking backwards (4 5 2 3 0 1), a 3D instruction with an
 * enumerated operand that restarts every row (A[0] A[1] A[4] A[5]), a 3x4 transpose as a 3D
 * VMOV (as vbw_mtx_xp does), and vbx_set_vl(n) returning to 1D.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_test.h"

static void show(const char *label, const vbx_byte_t *p, int n)
{
    printf("%-22s", label);
    for (int i = 0; i < n; i++)
        printf(" %d", p[i]);
    printf("\n");
}

int main(void)
{
    vbx_test_init();
    vbx_byte_t *img = vbx_sp_malloc(32), *ones = vbx_sp_malloc(16), *src = vbx_sp_malloc(16);
    vbx_byte_t *o = vbx_sp_malloc(16), *a = vbx_sp_malloc(16), *d3 = vbx_sp_malloc(16);
    vbx_byte_t *in = vbx_sp_malloc(16), *xp = vbx_sp_malloc(16), *sum = vbx_sp_malloc(16);
    vbx_uword_t *rows = vbx_sp_malloc(16);

    vbx_set_vl(24);
    vbx(SEB, VADD, img, 0, 0); /* img[i] = i */
    vbx_set_vl(12);
    vbx(SEB, VADD, in, 0, 0); /* in[i] = i: 3 rows x 4 columns */
    vbx_set_vl(8);
    vbx(SEB, VADD, a, 10, 0); /* a[i] = 10 + i */
    vbx_set_vl(6);
    vbx(SEB, VADD, src, 0, 0);
    vbx(SEB, VMOV, o, -1, 0);
    vbx_set_vl(4);
    vbx(SEB, VMOV, ones, 1, 0);
    vbx(SEB, VMOV, d3, -1, 0);

    /* 3 rows of 4: D steps 4 bytes (one word), A 8 bytes, B stays. */
    vbx_set_vl(4, 3);
    vbx_set_2D(4, 8, 0);
    vbx_acc(VVWBU, VMUL, rows, img, ones);

    /* 3 rows of 2, D walking backwards from o + 4. */
    vbx_set_vl(2, 3);
    vbx_set_2D(-2, 2, 0);
    vbx(VVB, VMOV, o + 4, src, 0);

    /* 2 matrices of 2 rows of 1: D steps 1 per row and 2 per matrix, A 1 and 4. */
    vbx_set_vl(1, 2, 2);
    vbx_set_2D(1, 1, 0);
    vbx_set_3D(2, 4, 0);
    vbx(VEB, VADD, d3, a, 0);

    /* Transpose 3 rows x 4 columns: xp[c * 3 + r] = in[r * 4 + c]. */
    vbx_set_vl(1, 4, 3);
    vbx_set_2D(3, 1, 1);
    vbx_set_3D(1, 4, 4);
    vbx(VVB, VMOV, xp, in, 0);

    /* Back to 1D. */
    vbx_set_vl(4);
    vbx(VVB, VADD, sum, in, in);
    vbx_sync();

    printf("row sums: %lu %lu %lu\n", (unsigned long)rows[0], (unsigned long)rows[1], (unsigned long)rows[2]);
    show("backwards rows:", o, 6);
    show("3D with enumeration:", d3, 4);
    show("transpose:", xp, 12);
    show("1D again:", sum, 4);

    int errors = (rows[0] != 6) + (rows[1] != 38) + (rows[2] != 70) + (o[0] != 4) + (o[5] != 1) + (d3[2] != 14) +
                 (xp[1] != 4) + (xp[11] != 11) + (sum[3] != 6);
    VBX_TEST_END(errors);
    return errors;
}

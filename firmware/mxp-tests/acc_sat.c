/*
 * acc_sat.c - accumulate and saturation (mxp-spec.md sections 3.3, 3.6, 3.7): reductions
 * of a row to one element, the truncation of each product to the calculation width before
 * accumulating, saturation of the sum to the destination (signed and unsigned), counting
 * with an accumulated conditional move, the fixed-point instructions' saturation, and the
 * saturation flags (read back with VADDC, which adds B's flag to A).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_test.h"

int main(void)
{
    vbx_test_init();
    vbx_word_t *a = vbx_sp_malloc(10 * 4), *w = vbx_sp_malloc(10 * 4), *dw = vbx_sp_malloc(8 * 4);
    vbx_byte_t *vb = vbx_sp_malloc(8), *zb = vbx_sp_malloc(8), *db = vbx_sp_malloc(16);
    vbx_ubyte_t *dbu = vbx_sp_malloc(16);
    vbx_half_t *dh = vbx_sp_malloc(16);

    /* a = 1..10, w = -3..6 */
    vbx_set_vl(10);
    vbx(SEW, VADD, a, 1, 0);
    vbx(SEW, VADD, w, -3, 0);
    vbx_acc(SVW, VMUL, dw, 2, a);       /* 2 * (1 + ... + 10) = 110 */
    vbx_acc(VVW, VMUL, dw + 1, a, a);   /* 1 + 4 + ... + 100 = 385 */
    vbx_acc(SVW, VCMV_LTZ, dw + 2, 1, w); /* counts w < 0: 3 */
    vbx_acc(VVW, VADD, dw + 3, w, a);   /* sum of (-3 + i) + (1 + i), i = 0..9: 70 */

    /* vb = 100 x 8 */
    vbx_set_vl(8);
    vbx(SEB, VMOV, vb, 100, 0);
    vbx(SEB, VMOV, zb, 0, 0);
    vbx_acc(SVB, VADD, db, 0, vb);     /* 800 -> 127 (saturated, flag 1) */
    vbx_acc(SVB, VMUL, db + 1, 2, vb); /* each 200 -> -56 at byte width; -448 -> -128 */
    vbx_acc(SVHB, VMUL, dh, 2, vb);    /* half width: 200 each, 1600 */
    vbx_acc(SVBU, VADD, dbu, 0, vb);   /* 800 -> 255 */
    vbx_acc(SVWB, VADD, dw + 4, 0, vb); /* 800 */
    vbx_acc(SVB, VADD, db + 2, -1, vb); /* 8 * 99 = 792 -> 127 */
    vbx_acc(SVB, VSUB, db + 3, 10, vb); /* 8 * -90 = -720 -> -128 */
    vbx_acc(VVB, VADD, db + 4, zb, zb); /* 0, not saturated */
    vbx_sync();
    printf("word sums: %ld %ld %ld %ld %ld\n", (long)dw[0], (long)dw[1], (long)dw[2], (long)dw[3], (long)dw[4]);
    printf("byte sums: %d %d %d %d %d\n", db[0], db[1], db[2], db[3], db[4]);
    printf("half sum: %d, unsigned byte sum: %u\n", dh[0], dbu[0]);

    /* Flags of the single accumulated elements. */
    vbx_set_vl(1);
    vbx_byte_t *f = vbx_sp_malloc(16);
    vbx(VVB, VADDC, f, zb, db);
    vbx(VVB, VADDC, f + 1, zb, db + 1);
    vbx(VVB, VADDC, f + 2, zb, db + 4);
    vbx(VVBU, VADDC, f + 3, zb, dbu);
    vbx_sync();
    printf("accumulate flags: %d %d %d %d\n", f[0], f[1], f[2], f[3]);

    /* Saturating element-wise instructions. */
    vbx_set_vl(8);
    vbx_byte_t *r1 = vbx_sp_malloc(8), *r2 = vbx_sp_malloc(8), *r4 = vbx_sp_malloc(8), *r5 = vbx_sp_malloc(8);
    vbx_byte_t *v64 = vbx_sp_malloc(8), *fl = vbx_sp_malloc(16);
    vbx_word_t *r3 = vbx_sp_malloc(8 * 4), *q = vbx_sp_malloc(8 * 4);
    vbx(SEB, VMOV, v64, 64, 0);
    vbx(SEW, VMOV, q, 0x38000, 0);       /* 3.5 in Q16.16 */
    vbx(VVB, VADDFXP, r1, vb, vb);       /* 200 -> 127 */
    vbx(SVBU, VSUBFXP, r2, 5, vb);       /* 5 - 100 -> 0 (unsigned) */
    vbx(SVW, VMULFXP, r3, 0x20000, q);   /* 2.0 * 3.5 = 7.0 */
    vbx(SVB, VMULFXP, r4, 64, v64);      /* Q4.4: 4.0 * 4.0 = 16.0 -> 127 */
    vbx(VVB, VADDFXP, r5, zb, vb);       /* 100, no saturation */
    vbx_set_vl(1);
    vbx(VVB, VADDC, fl, zb, r1);
    vbx(VVBU, VADDC, fl + 1, zb, r2);
    vbx(VVB, VADDC, fl + 2, zb, r4);
    vbx(VVB, VADDC, fl + 3, zb, r5);
    vbx_sync();
    printf("VADDFXP %d, VSUBFXP %u, VMULFXP word 0x%05lx, VMULFXP byte %d, VADDFXP %d\n", r1[0],
           (vbx_ubyte_t)r2[0], (unsigned long)r3[0], r4[0], r5[0]);
    printf("saturation flags: %d %d %d %d\n", fl[0], fl[1], fl[2], fl[3]);

    int errors = (dw[0] != 110) + (dw[1] != 385) + (dw[2] != 3) + (dw[3] != 70) + (dw[4] != 800) + (db[0] != 127) +
                 (db[1] != -128) + (db[2] != 127) + (db[3] != -128) + (db[4] != 0) + (dh[0] != 1600) +
                 (dbu[0] != 255) + (r1[0] != 127) + (r2[0] != 0) + (r3[0] != 0x70000) + (r4[0] != 127) +
                 (r5[0] != 100);
    VBX_TEST_END(errors);
    return errors;
}

/*
 * vs_modes.c - the VS pseudo-modes (vector A, scalar B; mxp-spec.md section 2.8), which the
 * API issues as SV instructions: VSUB as VADD of -s, VSHL as VMUL by 2^s, VSHR as VMULHI by
 * 2^(W - s) with an unsigned multiplier (arithmetic for signed, logical for unsigned; s = 0
 * as VADD of 0), VSLT/VSGT swapped, VMOV and VCMV with the operands swapped; also narrowing
 * (word vector, half result) and byte shifts.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 8

static void show_w(const char *label, const vbx_word_t *p)
{
    printf("%-16s", label);
    for (int i = 0; i < N; i++)
        printf(" %ld", (long)p[i]);
    printf("\n");
}

static void show_hex(const char *label, const vbx_uword_t *p)
{
    printf("%-16s", label);
    for (int i = 0; i < N; i++)
        printf(" %08lx", (unsigned long)p[i]);
    printf("\n");
}

int main(void)
{
    vbx_test_init();
    static const int32_t init[N] = {-8, -1, 0, 1, 7, 100, -100, 1 << 30};
    int32_t *h = vbx_shared_malloc(N * 4);
    for (int i = 0; i < N; i++)
        h[i] = init[i];
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_word_t *d[10];
    for (int i = 0; i < 10; i++)
        d[i] = vbx_sp_malloc(N * 4);
    vbx_half_t *dh = vbx_sp_malloc(N * 2);
    vbx_ubyte_t *vb = vbx_sp_malloc(4), *db = vbx_sp_malloc(4), *db2 = vbx_sp_malloc(4);

    vbx_set_vl(N);
    vbx_dma_to_vector(v, h, N * 4);
    vbx(VSW, VSUB, d[0], v, 3);
    vbx(VSW, VSHR, d[1], v, 2);
    vbx(VSWU, VSHR, d[2], v, 4);
    vbx(VSW, VSHL, d[3], v, 3);
    vbx(VSW, VSLT, d[4], v, 1);
    vbx(VSW, VSGT, d[5], v, 1);
    vbx(VSW, VMOV, d[6], v, 42);
    vbx(SEW, VMOV, d[7], 0, 0);
    vbx(VSW, VCMV_LTZ, d[7], v, 5);
    vbx(VSW, VSHR, d[8], v, 0);
    vbx(VSW, VADD, d[9], v, 1000);
    vbx(VSHW, VSHR, dh, v, 4);
    vbx_sync();
    show_w("v", v);
    show_w("v - 3", d[0]);
    show_w("v >> 2", d[1]);
    show_hex("v >>> 4", (vbx_uword_t *)d[2]);
    show_w("v << 3", d[3]);
    show_w("v < 1", d[4]);
    show_w("v > 1", d[5]);
    show_w("mov 42", d[6]);
    show_w("5 if v < 0", d[7]);
    show_w("v >> 0", d[8]);
    show_w("v + 1000", d[9]);
    printf("%-16s", "half(v >> 4)");
    for (int i = 0; i < N; i++)
        printf(" %d", dh[i]);
    printf("\n");

    /* Bytes 0x80 0xff 3 4: logical and arithmetic shift right by 1. */
    vbx_sync();
    vb[0] = 0x80;
    vb[1] = 0xff;
    vb[2] = 3;
    vb[3] = 4;
    vbx_set_vl(4);
    vbx(VSBU, VSHR, db, vb, 1);
    vbx(VSB, VSHR, db2, vb, 1);
    vbx_sync();
    printf("bytes >>> 1: %u %u %u %u\n", db[0], db[1], db[2], db[3]);
    printf("bytes >> 1: %d %d %d %d\n", (int8_t)db2[0], (int8_t)db2[1], (int8_t)db2[2], (int8_t)db2[3]);

    int errors = (d[1][0] != -2) + (d[1][6] != -25) + (d[2][0] != 0x0fffffff) + (d[4][3] != 0) + (d[5][4] != 1) +
                 (db[0] != 0x40) + ((int8_t)db2[0] != -64);
    VBX_TEST_END(errors);
    return errors;
}

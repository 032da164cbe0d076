/*
 * sync_regs.c - the vector-length and 2D/3D registers and their read-back (mxp-spec.md
 * section 1.3): each read-back is a round trip through the command FIFO, so it sees every
 * earlier setting; increments read back masked to the scratchpad size (S - 1 = 0x3ffff for
 * the default 256 KiB), not sign-extended; vbx_set_vl(n) resets ROWS and MATS to 1;
 * software register 16 keeps its whole value. Ends with a sync.
 *
 * qemu: skip (needs the MXP)
 * Needs mxpsim's default 256 KiB scratchpad (the read-back masks depend on its size).
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_test.h"

static void show(void)
{
    uint32_t vl, rows, mats, id, ia, ib, id3, ia3, ib3;
    vbx_get_vl(&vl, &rows, &mats);
    vbx_get_2D(&id, &ia, &ib);
    vbx_get_3D(&id3, &ia3, &ib3);
    printf("vl %lu rows %lu mats %lu | 2D %05lx %05lx %05lx | 3D %05lx %05lx %05lx\n", (unsigned long)vl,
           (unsigned long)rows, (unsigned long)mats, (unsigned long)id, (unsigned long)ia, (unsigned long)ib,
           (unsigned long)id3, (unsigned long)ia3, (unsigned long)ib3);
}

int main(void)
{
    vbx_test_init();
    vbx_set_vl(5, 3, 2);
    vbx_set_2D(-4, 8, -12);
    vbx_set_3D(-1, 256, 0);
    show();
    vbx_set_vl(7);
    show();
    vbx_set_vl(9, 4);
    vbx_set_2D(16, 0, 1);
    vbx_set_3D(0, 0, 0);
    show();
    long n = 0;
    vbx_get_vl(&n);
    printf("vbx_get_vl(&n): %ld\n", n);

    uint32_t r16 = 0;
    vbx_set_reg(VBX_REG_MXPCPU, 0xCAFEF00Du);
    vbx_get_reg(VBX_REG_MXPCPU, &r16);
    printf("register 16: %08lx\n", (unsigned long)r16);
    uint32_t r0 = 0;
    vbx_set_reg(GET_VL, 33);
    vbx_get_reg(GET_VL, &r0);
    printf("register 0 (VL) after set_reg: %lu\n", (unsigned long)r0);

    vbx_sync();
    vbx_sync();
    printf("synced\n");
    VBX_TEST_END(0);
    return 0;
}

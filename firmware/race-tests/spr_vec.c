/*
 * spr_vec.c - a vector instruction d = a + b is still pending (no vbx_sync()) when the CPU
 * reads one element of its source a and one of its destination d from the scratchpad.
 * Reading a is fine (the instruction only reads a: read/read), reading d races with the
 * instruction's write of d: spr/vec on the 4 bytes of d[5]. One finding.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spr/vec a=@peek_d b=@op object=scratchpad fix=sync vector=VADD:D
 * expect-provoke: spr/vec a-before-b=benign b-before-a=harmful
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

int main(void)
{
    vbx_test_init();
    vbx_word_t *a = vbx_sp_malloc(N * 4);
    vbx_word_t *b = vbx_sp_malloc(N * 4);
    vbx_word_t *d = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, a, 10, 0);
    vbx(SEW, VADD, b, 20, 0);
    vbx_sync();

    vbx(VVW, VADD, d, a, b); /* @op */
    int32_t x = a[5];
    int32_t y = d[5]; /* @peek_d */
    vbx_sync();

    printf("a[5] %ld, d[5] %ld\n", (long)x, (long)y);
    return 0;
}

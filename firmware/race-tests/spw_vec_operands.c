/*
 * spw_vec_operands.c - a report names the operand that holds the racing bytes. Two vector
 * instructions are pending (no vbx_sync()) when the CPU stores into their sources:
 *   1. d = a - b (VSUB): the store into b[3] races with the instruction's read of operand B
 *      (write-after-read: it may read the old or the new value); a is not touched;
 *   2. e = c * c (VMUL, c as both A and B): the store into c[0] races with the reads of both
 *      operands.
 * The CPU touches nothing else of the scratchpad before the sync: two spw/vec findings.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 2
 * expect-finding: spw/vec a=@poke_b b=@sub object=scratchpad fix=sync vector=VSUB:B
 * expect-provoke: spw/vec a-before-b=harmful b-before-a=benign
 * expect-finding: spw/vec a=@poke_c b=@square object=scratchpad fix=sync vector=VMUL:A+B
 * expect-provoke: spw/vec a-before-b=harmful b-before-a=benign
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
    vbx_word_t *c = vbx_sp_malloc(N * 4);
    vbx_word_t *d = vbx_sp_malloc(N * 4);
    vbx_word_t *e = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, a, 10, 0);
    vbx(SEW, VADD, b, 20, 0);
    vbx(SEW, VADD, c, 30, 0);
    vbx_sync();

    vbx(VVW, VSUB, d, a, b); /* @sub */
    vbx(VVW, VMUL, e, c, c); /* @square */
    b[3] = 1000; /* @poke_b */
    c[0] = -1; /* @poke_c */
    vbx_sync();

    printf("d[3] %ld, e[0] %ld\n", (long)d[3], (long)e[0]);
    return 0;
}

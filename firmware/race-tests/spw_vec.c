/*
 * spw_vec.c - a vector instruction d = a + b is still pending (no vbx_sync()) when the CPU
 * stores into its source a (write-after-read: the instruction may read the new value) and
 * into its destination d (write-after-write: either value may survive). Two store sites:
 * two spw/vec findings.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 2
 * expect-finding: spw/vec a=@poke_a b=@op object=scratchpad fix=sync vector=VADD:A
 * expect-provoke: spw/vec a-before-b=benign b-before-a=harmful
 * expect-finding: spw/vec a=@poke_d b=@op object=scratchpad fix=sync vector=VADD:D
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
    vbx_word_t *d = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, a, 10, 0);
    vbx(SEW, VADD, b, 20, 0);
    vbx_sync();

    vbx(VVW, VADD, d, a, b); /* @op */
    a[0] = 1000; /* @poke_a */
    d[15] = -1; /* @poke_d */
    vbx_sync();

    printf("d[0] %ld, d[15] %ld\n", (long)d[0], (long)d[15]);
    return 0;
}

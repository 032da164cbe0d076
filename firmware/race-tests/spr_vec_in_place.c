/*
 * spr_vec_in_place.c - an in-place vector instruction v = v + w (v is both operand A and
 * the destination D) is pending (no vbx_sync()) when the CPU reads v[2] from the scratchpad.
 * The CPU's read conflicts only with the instruction's WRITE of v (read/read is no race):
 * spr/vec on v[2], and the report names operand D alone, although A covers the same bytes.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spr/vec a=@peek b=@op object=scratchpad fix=sync vector=VADD:D
 * expect-provoke: spr/vec a-before-b=benign b-before-a=harmful
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_word_t *w = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 1, 0);
    vbx(SEW, VADD, w, 2, 0);
    vbx_sync();

    vbx(VVW, VADD, v, v, w); /* @op */
    int32_t x = v[2]; /* @peek */
    vbx_sync();

    printf("v[2] %ld\n", (long)x);
    return 0;
}

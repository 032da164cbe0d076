/*
 * interlock_partial.c - an interlock applies to the instruction that reads, not to its
 * neighbours. vbx_dma_to_vector writes v[0..15]; then, with no vbx_sync():
 *   1. VMOV writes v[8..15] from a scalar (reads no vector): write-after-write with the DMA,
 *      no interlock;
 *   2. VADD reads v[0..7] (and writes u): interlock 1 (it reads the DMA's destination), so
 *      it waits for the DMA.
 * The vector queue orders 1 before 2, and the interlock the DMA before 2, but nothing orders
 * the DMA and 1: dma_r/vec on v[8..15] for instruction 1 only. (The reverse order, VADD
 * first, is twin_interlock_transitive.c: no race.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: dma_r/vec a=@load b=@tail object=scratchpad fix=sync vector=VMOV:D
 * expect-provoke: dma_r/vec a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t src[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_word_t *u = vbx_sp_malloc(N * 4);
    for (int i = 0; i < N; i++)
        src[i] = i + 1;
    vbx_set_vl(N / 2);
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, src, sizeof src); /* @load */
    vbx(SEW, VMOV, v + N / 2, 7, 0); /* @tail */
    vbx(VVW, VADD, u, v, v);
    vbx_sync();

    printf("u[0] = %ld, v[8] = %ld\n", (long)u[0], (long)v[8]);
    return 0;
}

/*
 * twin_interlock_transitive.c - interlock_partial.c with the two instructions swapped.
 * vbx_dma_to_vector writes v[0..15]; then, with no vbx_sync():
 *   1. VADD reads v[0..7] (and writes u): interlock 1, it waits for the DMA;
 *   2. VMOV writes v[8..15] from a scalar: no interlock of its own with the DMA, but the
 *      vector queue orders it after instruction 1, which the interlock orders after the DMA.
 * Happens-before is transitive (race-semantics.md section 2: DMA -> 1 -> 2): no race.
 * (This relies on the model's interlock edge from the whole DMA to the instruction;
 * mxp-spec.md 1.4 adds that a DMA conflict clears once the DMA has passed the overlapping
 * bytes, which the model does not distinguish.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
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

    vbx_dma_to_vector(v, src, sizeof src);
    vbx(VVW, VADD, u, v, v);
    vbx(SEW, VMOV, v + N / 2, 7, 0);
    vbx_sync();

    printf("u[0] = %ld, v[8] = %ld\n", (long)u[0], (long)v[8]);
    return 0;
}

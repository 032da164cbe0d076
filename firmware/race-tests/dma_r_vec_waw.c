/*
 * dma_r_vec_waw.c - vbx_dma_to_vector writes a scratchpad vector v, and the next vector
 * instruction (no vbx_sync() between) also WRITES v without reading it (VMOV of a scalar,
 * SE mode: no vector source). Write-after-write between the two queues is not one of the four
 * interlocks (mxp-spec.md 1.4; interlock.rs), so the DMA and the instruction may run in either
 * order: dma_r/vec on all of v.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: dma_r/vec a=@load b=@fill object=scratchpad fix=sync vector=VMOV:D
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
    for (int i = 0; i < N; i++)
        src[i] = i + 1;
    vbx_set_vl(N);
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, src, sizeof src); /* @load */
    vbx(SEW, VMOV, v, 7, 0); /* @fill */
    vbx_sync();

    printf("v[0] = %ld\n", (long)v[0]);
    return 0;
}

/*
 * vec_dma_r_waw.c - a vector instruction writes a scratchpad vector v (from a scalar and the
 * enumeration: it reads no vector), and a LATER-requested vbx_dma_to_vector also writes v,
 * with no vbx_sync() between. Interlock 4 orders a DMA after an earlier instruction that
 * READS its destination; one that only WRITES it is not interlocked: dma_r/vec, write-after-
 * write, on all of v. (Class order puts dma_r first: a is the DMA.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: dma_r/vec a=@load b=@init object=scratchpad fix=sync vector=VADD:D
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
        src[i] = 100 + i;
    vbx_set_vl(N);
    vbx_dcache_flush_all();

    vbx(SEW, VADD, v, 1, 0); /* @init */
    vbx_dma_to_vector(v, src, sizeof src); /* @load */
    vbx_sync();

    printf("v[3] = %ld\n", (long)v[3]);
    return 0;
}

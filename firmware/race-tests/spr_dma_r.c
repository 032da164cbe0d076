/*
 * spr_dma_r.c - the CPU reads a scratchpad vector (loads from the scratchpad slave port)
 * right after requesting vbx_dma_to_vector into it, before vbx_sync(): the DMA's scratchpad
 * writes are ordered before CPU nodes only by a sync. spr/dma_r on every byte read. One
 * load site (a loop over the whole vector): one finding.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spr/dma_r a=@peek b=@load object=scratchpad fix=sync
 * expect-provoke: spr/dma_r a-before-b=benign b-before-a=harmful
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
        src[i] = i * i;
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, src, sizeof src); /* @load */
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += v[i]; /* @peek */
    vbx_sync();

    printf("sum %ld\n", (long)sum);
    return 0;
}

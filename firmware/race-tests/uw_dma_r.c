/*
 * uw_dma_r.c - a broken double buffer. vbx_dma_to_vector reads a shared (uncached) input
 * buffer; before vbx_sync() the CPU already writes the next batch of input into the same
 * buffer through the uncached alias. The DMA may read old or new values: uw/dma_r on every
 * byte rewritten. One store site (a loop): one finding.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: uw/dma_r a=@refill b=@send object=heap fix=sync
 * expect-provoke: uw/dma_r a-before-b=benign b-before-a=silent-corruption
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

int main(void)
{
    vbx_test_init();
    int32_t *in = vbx_shared_malloc(N * 4);
    if (in == NULL)
        return 1;
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    for (int i = 0; i < N; i++)
        in[i] = i;
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, in, N * 4); /* @send */
    for (int i = 0; i < N; i++)
        in[i] = 100 + i; /* @refill */
    vbx_sync();

    printf("v[4] = %ld\n", (long)v[4]);
    return 0;
}

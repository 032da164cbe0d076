/*
 * unrolled_stores.c - a loop of uncached stores that gcc unrolls completely (#pragma GCC
 * unroll): 16 store instructions, one per word, all on the same source line. They rewrite a
 * DMA input buffer (through mxpsim_uncached) while vbx_dma_to_vector still reads it:
 * uw/dma_r for each store, but one top user frame, so ONE finding.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: uw/dma_r a=@unrolled b=@send object=buf fix=sync
 * expect-provoke: uw/dma_r a-before-b=benign b-before-a=silent-corruption
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t buf[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    volatile int32_t *ubuf = mxpsim_uncached(buf);
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();
    for (int i = 0; i < N; i++)
        ubuf[i] = i;

    vbx_dma_to_vector(v, buf, sizeof buf); /* @send */
#pragma GCC unroll 16
    for (int i = 0; i < N; i++)
        ubuf[i] = 2 * i + 1; /* @unrolled */
    vbx_sync();

    printf("v[9] = %ld\n", (long)v[9]);
    return 0;
}

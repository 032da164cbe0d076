/*
 * spw_dma_r_memset.c - vbx_dma_to_vector fills a scratchpad vector, and before vbx_sync()
 * the CPU clears the same scratchpad bytes with libc's memset (a CPU store to the scratchpad
 * slave port). Nothing orders the CPU's scratchpad stores and the DMA's scratchpad writes
 * (only a sync would): spw/dma_r, write-after-write, on every byte. The stores are inside
 * memset; the finding names the user line that calls it. One finding.
 *
 * The source buffer is flushed before the request (no cache race), and the length is read
 * through a volatile so that gcc calls memset.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spw/dma_r a=@clear b=@load object=scratchpad fix=sync
 * expect-provoke: spw/dma_r a-before-b=benign b-before-a=silent-corruption
 */
#include <string.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t src[N] __attribute__((aligned(64)));
static volatile size_t nbytes = sizeof src;

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    size_t n = nbytes;
    for (int i = 0; i < N; i++)
        src[i] = 10 * i;
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, src, n); /* @load */
    memset(v, 0, n); /* @clear */
    vbx_sync();

    printf("v[3] = %ld\n", (long)v[3]);
    return 0;
}

/*
 * alloc_dma_w_before_sync.c - the CPU peeks at the output buffer through the cache after
 * requesting vbx_dma_to_host and before vbx_sync() (the invalidate after the sync is there).
 * The peek's line fill (alloc, succ = the peek) comes after the request, and the DMA is only
 * ordered before CPU nodes after the sync: alloc/dma_w on the line of out[0]. The read
 * after the sync and the flush is correct. The missing piece is the sync before the peek.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@peek b=@recv object=out fix=sync
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=harmful
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t out[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 20, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    int32_t early = out[0]; /* @peek */
    vbx_sync();
    vbx_dcache_flush(out, sizeof out);
    int32_t late = out[0];

    printf("out[0] %ld, then %ld\n", (long)early, (long)late);
    return 0;
}

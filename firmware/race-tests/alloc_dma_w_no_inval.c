/*
 * alloc_dma_w_no_inval.c - the classic stale line. The CPU reads the output buffer (the line
 * is now in the cache), vbx_dma_to_host writes it, vbx_sync() waits, and the CPU reads it
 * again through the cache without invalidating the line. The second load's line fill
 * (alloc: pred = the last flush/invalidate of the line, the flush-all before everything;
 * succ = the load) may have happened before the DMA wrote DRAM: alloc/dma_w on the line
 * holding out[0] (out[0..7] with 32-byte lines). The first load comes before the request:
 * ordered, no finding.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@use b=@recv object=out fix=invalidate
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

    int32_t before = out[0];
    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    vbx_sync();
    int32_t after = out[0]; /* @use */
    vbx_dcache_flush(out, sizeof out);

    printf("out[0] %ld -> %ld\n", (long)before, (long)after);
    return 0;
}

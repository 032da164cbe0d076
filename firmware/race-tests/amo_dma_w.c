/*
 * amo_dma_w.c - an atomic add (amoadd.w) through the cache into the output buffer after
 * requesting vbx_dma_to_host and before vbx_sync(). An AMO through the cache is a cached read
 * and a cached write at one moment (detector/README.md). The read's line fill (alloc, succ =
 * the AMO) comes after the request, unordered with the DMA's write: alloc/dma_w. The write
 * makes the line dirty; its write-back (pred = the AMO, succ = the flush after the sync) may
 * land before or after the DMA's: wb/dma_w. Both at the AMO's line; the missing piece is the
 * sync before the AMO. (Both sides' top user frame is the AMO in the inlined helper.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 2
 * expect-finding: alloc/dma_w a=@amo b=@recv object=out fix=sync
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=harmful
 * expect-finding: wb/dma_w a=@amo b=@recv object=out fix=sync
 * expect-provoke: wb/dma_w a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t out[N] __attribute__((aligned(64)));

/* amoadd.w: the firmware is rv32im, so the A instruction is enabled for this statement only. */
static int32_t atomic_add(int32_t *p, int32_t v)
{
    int32_t old;
    __asm__ volatile(".option push\n.option arch, +a\namoadd.w %0, %2, (%1)\n.option pop" /* @amo */
                     : "=r"(old)
                     : "r"(p), "r"(v)
                     : "memory");
    return old;
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 20, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    int32_t old = atomic_add(&out[0], 1);
    vbx_sync();
    vbx_dcache_flush(out, sizeof out);

    printf("old %ld, out[0] %ld\n", (long)old, (long)out[0]);
    return 0;
}

/*
 * globals_adjacent.c - two separate .bss globals, a 32-byte aligned status word `flag` and
 * the 28-byte array `rx` the DMA writes, share one 32-byte line (the program checks the layout
 * and exits 1 if the compiler placed them otherwise). vbx_dma_to_host writes rx; after
 * vbx_sync() the CPU reads flag through the cache, without invalidating the line first. That
 * load's line fill (alloc; pred = the last flush/invalidate of the line, the flush-all
 * before the request) reads rx's bytes as well and may have happened before the DMA wrote
 * them: alloc/dma_w on rx. Nothing of rx is read: the cure is separate lines (or an
 * invalidate after the sync).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@check b=@recv object=rx fix=align
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 7 /* words of rx */

/* One section for both, in this order, so that they are laid out together (small globals would
 * otherwise go to .sbss, away from rx, and gcc emits globals in reverse order). Together they
 * fill the line. */
#define ADJACENT __attribute__((section(".bss.adjacent"), no_reorder))
static volatile int32_t flag ADJACENT __attribute__((aligned(32)));
static int32_t rx[N] ADJACENT;

int main(void)
{
    vbx_test_init();
    uintptr_t line = (uintptr_t)&flag / 32;
    if ((uintptr_t)rx / 32 != line || ((uintptr_t)(rx + N) - 1) / 32 != line) {
        printf("layout: flag %p, rx %p\n", (void *)&flag, (void *)rx);
        return 1;
    }
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 40, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(rx, v, sizeof rx); /* @recv */
    vbx_sync();
    int32_t f = flag; /* @check */
    vbx_dcache_flush(rx, sizeof rx);

    printf("flag %ld, rx[3] = %ld\n", (long)f, (long)rx[3]);
    return 0;
}

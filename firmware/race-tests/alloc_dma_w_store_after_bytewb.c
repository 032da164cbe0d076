/*
 * alloc_dma_w_store_after_bytewb.c - alloc_dma_w_store_after.c (one word of a DMA output
 * buffer patched through the cache after vbx_sync(), without invalidating) on a cache with
 * byte-granular write-back (--cache wb=byte). A store has no line fill there (rule 9 is for
 * whole-line write-back only), and the write-back of the patched word comes after the sync:
 * no race. (Only the write-back granularity differs from alloc_dma_w_store_after.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --cache wb=byte
 * expect-findings: 0
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

    vbx_dma_to_host(out, v, sizeof out);
    vbx_sync();
    out[3] = 0;
    vbx_dcache_flush(out, sizeof out);

    printf("out[2] = %ld\n", (long)out[2]);
    return 0;
}

/*
 * false_sharing_pending_bytewb.c - false_sharing_pending.c on a cache with byte-granular
 * write-back (--cache wb=byte). The write-back now writes only the dirty bytes (the
 * counter), which the DMA does not touch: no wb/dma_w. A store has no line fill under
 * byte-granular write-back (rule 9 applies to whole-line write-back only). But the counter's
 * LOAD still fills the whole line while the DMA may be writing data: alloc/dma_w remains.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --cache wb=byte
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@bump b=@recv object=shared.data fix=align
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 7 /* words of data */

static struct {
    int32_t counter;
    int32_t data[N];
} shared __attribute__((aligned(32)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 500, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(shared.data, v, sizeof shared.data); /* @recv */
    shared.counter++; /* @bump */
    vbx_sync();
    vbx_dcache_flush(&shared, sizeof shared);

    printf("counter %ld, data[6] = %ld\n", (long)shared.counter, (long)shared.data[6]);
    return 0;
}

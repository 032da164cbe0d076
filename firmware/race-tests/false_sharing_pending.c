/*
 * false_sharing_pending.c - as false_sharing_32.c (a counter and a DMA output array in one
 * 32-byte line), but the CPU bumps the counter while the vbx_dma_to_host is still pending
 * (after the request, before vbx_sync).
 *  - whole-line write-back (the default): two findings on the same line of code:
 *    - the load needs the line: its fill (alloc, pred = the flush-all before the request)
 *      reads data's bytes while the DMA may be writing them: alloc/dma_w;
 *    - the store dirties the line: its whole-line write-back (succ = the flush after the
 *      sync) may overwrite the DMA's result: wb/dma_w. (The store's own fill, rule 9, is
 *      the same race as the load's: same frame, same class.)
 *    A sync before the bump removes the write-back race but not the fill's (the line was
 *    not invalidated after the DMA): the cure is separate lines.
 *  - byte-granular write-back (--cache wb=byte): the write-back writes only the dirty bytes
 *    (the counter), which the DMA does not touch: no wb/dma_w. A store has no line fill
 *    there (rule 9 is for whole-line write-back only). But the counter's LOAD still fills
 *    the whole line while the DMA may be writing data: alloc/dma_w remains.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 2
 * expect-finding: alloc/dma_w a=@bump b=@recv object=shared.data fix=align
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=harmful
 * expect-finding: wb/dma_w a=@bump b=@recv object=shared.data fix=align
 * expect-provoke: wb/dma_w a-before-b=harmful b-before-a=benign
 * race-check: --cache wb=byte
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@bump b=@recv object=shared.data fix=align
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=benign
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

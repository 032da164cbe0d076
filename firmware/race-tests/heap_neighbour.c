/*
 * heap_neighbour.c - two heap blocks share a 32-byte line: an 8-byte block `count` (a counter
 * the CPU updates through the cache) and the block after it, `rx`, that vbx_dma_to_host
 * writes. With the program break moved so that count starts at a 64-byte boundary L, picolibc's
 * malloc puts count at L..L+7 (its chunk ends at L+12) and rx at L+16..L+63 (after its 4-byte
 * header): rx's first 16 bytes are in count's line (the program checks this layout and exits
 * 1 otherwise). The CPU bumps the counter, then requests the DMA without flushing that line:
 * the line's whole-line write-back may overwrite rx[0..3] after the DMA wrote them, wb/dma_w.
 * The CPU never touches rx there: the cure is blocks that do not share lines.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_w a=@bump b=@recv object=heap fix=align
 * expect-provoke: wb/dma_w a-before-b=harmful b-before-a=benign
 */
#include <unistd.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 12 /* words of rx */

/* Move the program break so that the next malloc returns a 64-byte aligned block. */
static void align_heap(void)
{
    uintptr_t brk = (uintptr_t)sbrk(0);
    sbrk((ptrdiff_t)((60 - brk) & 63));
}

int main(void)
{
    vbx_test_init();
    align_heap();
    int32_t *count = malloc(8);
    int32_t *rx = malloc(N * 4);
    if (count == NULL || ((uintptr_t)count & 63) != 0 || rx != count + 4)
        return 1;
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 70, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    *count += 1; /* @bump */
    vbx_dma_to_host(rx, v, N * 4); /* @recv */
    vbx_sync();
    vbx_dcache_flush(count, 64);

    printf("count %ld, rx[0] = %ld\n", (long)*count, (long)rx[0]);
    return 0;
}

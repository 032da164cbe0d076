/*
 * false_sharing_32.c - a global counter and a DMA output array share one 32-byte line (one
 * struct, 32-byte aligned: counter at offset 0, data at 4..31). The CPU bumps the counter
 * (the line turns dirty) and then requests vbx_dma_to_host into data, with no flush of the
 * line between. (The counter's load fills the line before the request: ordered.)
 *  - whole-line write-back (the default): the line's write-back also writes data's bytes,
 *    with the values the CPU's copy holds; it may come after the DMA: wb/dma_w on
 *    data[0..6]. The CPU never touches data itself: the cure is to keep the two in
 *    separate lines.
 *  - byte-granular write-back (--cache wb=byte): the write-back writes only the dirty bytes
 *    (the counter), which the DMA does not write, and a store has no line fill: no race.
 *    False sharing is only a race under whole-line write-back.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_w a=@bump b=@recv object=shared.data fix=align
 * expect-provoke: wb/dma_w a-before-b=harmful b-before-a=benign
 * race-check: --cache wb=byte
 * expect-findings: 0
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

    shared.counter++; /* @bump */
    vbx_dma_to_host(shared.data, v, sizeof shared.data); /* @recv */
    vbx_sync();
    vbx_dcache_flush(&shared, sizeof shared);

    printf("counter %ld, data[6] = %ld\n", (long)shared.counter, (long)shared.data[6]);
    return 0;
}

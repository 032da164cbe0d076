/*
 * false_sharing_64.c - a global counter and a DMA output array 32 bytes apart in one 64-byte
 * aligned struct: they share a 64-byte line, but not a 32-byte one. The CPU bumps the
 * counter (the line turns dirty) and then requests vbx_dma_to_host into data, with no flush
 * of the line between.
 *  - 64-byte lines (--cache line=64): the whole-line write-back also writes data's bytes and
 *    may come after the DMA: wb/dma_w on data. The CPU never touches data: the cure is
 *    separate lines.
 *  - the default machine, 32-byte lines: the counter and the array are in different lines:
 *    no race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 * race-check: --cache line=64
 * expect-findings: 1
 * expect-finding: wb/dma_w a=@bump b=@recv object=shared.data fix=align
 * expect-provoke: wb/dma_w a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 8 /* words of data */

static struct {
    int32_t counter;
    int32_t unused[7];
    int32_t data[N];
} shared __attribute__((aligned(64)));

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

    printf("counter %ld, data[7] = %ld\n", (long)shared.counter, (long)shared.data[7]);
    return 0;
}

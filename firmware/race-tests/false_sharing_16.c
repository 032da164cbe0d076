/*
 * false_sharing_16.c - with 16-byte lines (--cache line=16): a global counter and a DMA
 * input array share one 16-byte line (one struct, 16-byte aligned: counter at offset 0,
 * data at 4..15, initialised data). The CPU stores the counter (the line turns dirty) and
 * then requests vbx_dma_to_vector from data, with no flush between. The line's whole-line
 * write-back also rewrites data's bytes and may come while the DMA reads them: wb/dma_r on
 * data (a benign race: the bytes written back are the ones in DRAM, but a race under the
 * model). The CPU never touches data: the cure is separate lines.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --cache line=16
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@set b=@send object=shared.data fix=align
 * expect-provoke: wb/dma_r a-before-b=benign b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 3 /* words of data */

static struct {
    int32_t counter;
    int32_t data[N];
} shared __attribute__((aligned(16))) = {0, {7, 8, 9}};

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    shared.counter = 5; /* @set */
    vbx_dma_to_vector(v, shared.data, sizeof shared.data); /* @send */
    vbx_sync();
    vbx_dcache_flush(&shared, sizeof shared);

    printf("v[2] = %ld\n", (long)v[2]);
    return 0;
}

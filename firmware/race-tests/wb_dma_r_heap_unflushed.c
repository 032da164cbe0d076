/*
 * wb_dma_r_heap_unflushed.c - a malloc'd (cached) input buffer is filled by the CPU and sent
 * to the scratchpad with vbx_dma_to_vector, with no flush in between. The filled lines are
 * dirty: their write-back may come after the DMA has read DRAM, so the DMA may read the old
 * bytes (wb/dma_r on every line of the buffer). One finding: one store site (the loop), one
 * request.
 *
 * The buffer is 64 bytes at a 64-byte boundary (the program break is moved first), so it
 * owns its lines at every line size up to 64; everything the allocation wrote through the
 * cache is flushed before the fill.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@fill b=@send object=heap fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include <unistd.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

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
    int32_t *buf = malloc(N * 4);
    if (buf == NULL || ((uintptr_t)buf & 63) != 0)
        return 1;
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    for (int i = 0; i < N; i++)
        buf[i] = 3 * i + 1; /* @fill */
    vbx_dma_to_vector(v, buf, N * 4); /* @send */
    vbx_sync();

    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += v[i];
    printf("sum %ld\n", (long)sum);
    return 0;
}

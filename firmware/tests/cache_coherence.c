/*
 * cache_coherence.c - the data cache is not coherent with the uncached alias, and the
 * maintenance operations make it so: what a DMA engine would see of cached data, observed
 * through the uncached alias (which reads DRAM as the engine does).
 *
 * Needs mxpsim's default cache (32-byte lines, write-back, whole-line write-back); the
 * first line printed says which line size it ran with.
 *
 * qemu: skip (no uncached alias, no cache model, no mxpsim sysctl in QEMU)
 * cache: default-only (the output shows the default cache's behaviour)
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>

#include "mxpsim.h"

/* 64 words, aligned to a generous line boundary, in cached DRAM (.bss). */
static volatile uint32_t buf[64] __attribute__((aligned(256)));

/* One 32-byte line shared by a cached variable and a buffer written "by DMA" (uncached). */
static struct {
    uint32_t cached_tail[2];
    uint32_t dma_buf[6];
} shared __attribute__((aligned(32)));

int main(void)
{
    volatile uint32_t *u = mxpsim_uncached((const void *)buf);
    printf("line size: %u\n", (unsigned)mxpsim_dcache_line_size());

    /* 1. A cached store stays in the cache: DRAM is stale until the line is flushed. */
    buf[0] = 0x11111111;
    printf("store, alias before flush: %08x\n", (unsigned)u[0]);
    mxpsim_cbo_flush((const void *)&buf[0]);
    printf("store, alias after flush:  %08x\n", (unsigned)u[0]);

    /* 2. Invalidate discards dirty data: the store is lost. */
    buf[1] = 0x22222222;
    mxpsim_cbo_inval((const void *)&buf[1]);
    printf("store, inval, reload:      %08x (word 0 kept: %08x)\n", (unsigned)buf[1], (unsigned)buf[0]);

    /* 3. Clean writes back and keeps the line, so a later DRAM write stays invisible
     *    to cached reads (a stale line) until the line is invalidated. */
    buf[2] = 0x33333333;
    mxpsim_cbo_clean((const void *)&buf[2]);
    printf("clean, alias:              %08x\n", (unsigned)u[2]);
    u[3] = 0x44444444;
    printf("alias write, cached read:  %08x (stale)\n", (unsigned)buf[3]);
    mxpsim_cbo_inval((const void *)&buf[3]);
    printf("after inval, cached read:  %08x\n", (unsigned)buf[3]);

    /* 4. Flush-all through the system-control register. */
    buf[16] = 0x55555555;
    buf[40] = 0x66666666;
    mxpsim_dcache_flush_all();
    printf("flush all, alias:          %08x %08x\n", (unsigned)u[16], (unsigned)u[40]);

    /* 5. The race mechanism: a cached variable shares a line with a DMA buffer. The line
     *    is allocated (clean), the engine writes the buffer in DRAM, the CPU updates its
     *    variable (the line turns dirty), and the line's write-back puts the stale copy of
     *    the whole line over the buffer. */
    volatile uint32_t *dma = mxpsim_uncached(shared.dma_buf);
    volatile uint32_t *tail = shared.cached_tail;
    (void)tail[0];
    for (int i = 0; i < 6; i++)
        dma[i] = 0xd0 + i;
    tail[0] = 1;
    printf("dma_buf before write-back: %08x .. %08x\n", (unsigned)dma[0], (unsigned)dma[5]);
    mxpsim_cbo_flush((const void *)shared.cached_tail);
    printf("dma_buf after write-back:  %08x .. %08x\n", (unsigned)dma[0], (unsigned)dma[5]);
    return 0;
}

/*
 * vbx_port.c - data-cache maintenance and uncached allocation for mxpsim (mxp-spec.md
 * section 5).
 */
#include "vbx.h"
#include "vbx_port.h"
#include <malloc.h>

/* Flush by address (an integer: the bytes are not read by the CPU). */
static void flush_range(uint32_t addr, size_t len)
{
    if (len == 0)
        return;
    uint32_t line = VBX_SYSCTL_READ_(MXPSIM_SYSCTL_CACHE_LINE);
    uint32_t size = VBX_SYSCTL_READ_(MXPSIM_SYSCTL_CACHE_SIZE);
    if (line == 0 || len > 4 * (size_t)size) {
        vbx_dcache_flush_all();
        return;
    }
    uint32_t start = vbx_cached_addr_(addr);
    if (start < MXPSIM_DRAM_BASE || start >= MXPSIM_UNCACHED_ALIAS)
        return; /* scratchpad, registers: nothing cached */
    uint32_t first = start & ~(line - 1);
    uint32_t lines = (uint32_t)((start - first + len + line - 1) / line);
    for (uint32_t i = 0; i < lines; i++)
        mxpsim_cbo_flush((const void *)(uintptr_t)(first + i * line));
}

void vbx_dcache_flush(const void *p, size_t len)
{
    flush_range(VBX_WORD_(p), len);
}

void *vbx_uncached_malloc(size_t num_bytes)
{
    void *p = malloc(num_bytes);
    if (p == NULL)
        return NULL;
    /* No line of the block may stay in the cache: a later write-back would overwrite what
     * the uncached alias and DMA write. */
    flush_range(VBX_WORD_(p), num_bytes);
    return VBX_UNCACHED_ADDR(p);
}

void vbx_uncached_free(void *p)
{
    void *block = VBX_CACHED_ADDR(p);
    /* The block goes back to the heap, which hands memory out as cached: drop every line of
     * it the cache may hold. The DMA and the uncached alias wrote it behind the cache's back,
     * so a line fetched (or prefetched) before they did would be stale when the memory is
     * reused -- and the heap's own header accesses would fetch one. (Flush, not invalidate: a
     * line at the block's edges may hold a neighbour's dirty bytes.) */
    flush_range(VBX_WORD_(block), malloc_usable_size(block));
    free(block);
}

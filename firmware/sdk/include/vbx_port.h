/*
 * vbx_port.h - the SDK's portability layer for mxpsim (mxp-spec.md section 5): shared
 * (uncached) buffers, address remapping, data-cache maintenance and timestamps.
 *
 * mxpsim's data cache is write-back and not coherent with the MXP's DMA, which reads and
 * writes DRAM directly. DRAM at MXPSIM_DRAM_BASE (0x8000_0000) is cached; the same DRAM is
 * reachable uncached at MXPSIM_UNCACHED_ALIAS (0xC000_0000). Shared buffers are handed out
 * as uncached-alias pointers, as the SDK's Xilinx ports do, so CPU accesses to them are
 * always coherent with DMA.
 *
 * Build setting: VBX_CPU_DCACHE_LINE_SIZE (default 16, the SDK simulator port's value) is
 * the padding of vbx_shared_malloc, a compile-time constant as in the SDK. It is NOT read
 * from the hardware: with a real line size larger than it, a shared buffer can share cache
 * lines with neighbouring heap data, which is the race class mxpsim's detector looks for.
 * Set it to the cache's line size (e.g. -DVBX_CPU_DCACHE_LINE_SIZE=32) to rule that out.
 * VBX_CPU_DCACHE_SIZE (default 32768) is the cache size the SDK's ports define.
 */
#ifndef VBX_PORT_H
#define VBX_PORT_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef VBX_CPU_DCACHE_LINE_SIZE
#define VBX_CPU_DCACHE_LINE_SIZE 16
#endif
#define VBX_PADDING() VBX_CPU_DCACHE_LINE_SIZE

/* The data cache's size in bytes: 32 KiB, the value of the SDK's ORCA (RISC-V) port
 * (mxp-spec.md section 5.1). Nothing here uses it; like the line size, it is a constant,
 * not read from the simulated cache. */
#ifndef VBX_CPU_DCACHE_SIZE
#define VBX_CPU_DCACHE_SIZE 32768
#endif

/* System-control register reads (a hook in the SDK's CPU-only checks). */
#ifdef VBX_PORT_CAPTURE
uint32_t vbx_capture_sysctl(uint32_t offset);
#define VBX_SYSCTL_READ_(off) vbx_capture_sysctl(off)
#else
#define VBX_SYSCTL_READ_(off) MXPSIM_SYSCTL(off)
#endif

/* ---- address translation (section 4.3) --------------------------------------------------- */

static inline uint32_t vbx_uncached_addr_(uint32_t x)
{
    return x >= MXPSIM_DRAM_BASE && x < MXPSIM_UNCACHED_ALIAS ? x - MXPSIM_DRAM_BASE + MXPSIM_UNCACHED_ALIAS : x;
}

static inline uint32_t vbx_cached_addr_(uint32_t x)
{
    return vbx_dma_addr_(x);
}

/* Uncached alias of a DRAM pointer (an alias pointer is returned as is). */
#define VBX_UNCACHED_ADDR(x) ((void *)(uintptr_t)vbx_uncached_addr_(VBX_WORD_(x)))
/* Cached (DRAM) address of an alias pointer (a DRAM pointer is returned as is). */
#define VBX_CACHED_ADDR(x) ((void *)(uintptr_t)vbx_cached_addr_(VBX_WORD_(x)))
/* The address the DMA engine uses: the physical (cached-window) DRAM address. */
#define VBX_DMA_ADDR(x, len) ((void)(len), VBX_CACHED_ADDR(x))

/* ---- data-cache maintenance ("flush" = write back dirty data, then invalidate) ------------- */

/* The line holding p (DRAM or alias pointer; anything else is ignored). */
static inline void vbx_dcache_flush_line(const void *p)
{
    uint32_t a = vbx_cached_addr_(VBX_WORD_(p));
    if (a >= MXPSIM_DRAM_BASE && a < MXPSIM_UNCACHED_ALIAS)
        mxpsim_cbo_flush((const void *)(uintptr_t)a);
}

/* Every line of the data cache. */
static inline void vbx_dcache_flush_all(void)
{
    mxpsim_dcache_flush_all();
}

/* Every line holding a byte of [p, p + len), one cbo.flush per line; the whole cache when
 * len exceeds 4 x the cache size. */
void vbx_dcache_flush(const void *p, size_t len);

/* ---- shared buffers (section 5.2) -------------------------------------------------------------- */

/* malloc, flush the block's lines out of the cache, return the block's uncached alias. */
void *vbx_uncached_malloc(size_t num_bytes);
/* Frees a block from vbx_uncached_malloc (alias or cached pointer). */
void vbx_uncached_free(void *p);

/* A buffer starting on a VBX_PADDING() boundary, whose last padding unit is private, in
 * uncached memory. The raw block pointer sits in the pointer-sized slot just below it.
 * Never inlined or cloned (`noipa`; each object file keeps its own copy, with its own
 * VBX_PADDING()): mxpsim's race reports name heap blocks by the allocator function that
 * returned them, watched at its entry (size in a0) and return, so the shared buffer must come
 * from a function of this name with the C calling convention. */
__attribute__((noipa, unused)) static void *vbx_shared_malloc(size_t num_bytes)
{
    size_t pad = VBX_PADDING();
    void *raw = vbx_uncached_malloc(num_bytes + sizeof(void *) + 2 * pad);
    if (raw == NULL)
        return NULL;
    uintptr_t user = VBX_PAD_UP((uintptr_t)raw + sizeof(void *), (uintptr_t)pad);
    ((void **)user)[-1] = raw;
    return (void *)user;
}

__attribute__((noipa, unused)) static void vbx_shared_free(void *p)
{
    if (p != NULL)
        vbx_uncached_free(((void **)p)[-1]);
}

/* Caller-provided memory p (of at least num_bytes + VBX_PADDING() bytes) as a shared buffer. */
static inline void *vbx_remap_uncached_flush(void *p, size_t len);
static inline void *vbx_shared_alloca_nodebug(size_t num_bytes, void *p)
{
    void *aligned = (void *)VBX_PAD_UP((uintptr_t)p, (uintptr_t)VBX_PADDING());
    return vbx_remap_uncached_flush(aligned, num_bytes);
}

/* The cached view of a buffer: fast, but dirty lines must be flushed before DMA reads the
 * memory, and it must be invalidated/flushed before reading what DMA wrote. */
static inline void *vbx_remap_cached(void *p, size_t len)
{
    (void)len;
    return VBX_CACHED_ADDR(p);
}

/* Flush the line at p, return the uncached alias of p. */
static inline void *vbx_remap_uncached(void *p)
{
    vbx_dcache_flush_line(p);
    return VBX_UNCACHED_ADDR(p);
}

/* Flush [p, p + len), return the uncached alias of p. */
static inline void *vbx_remap_uncached_flush(void *p, size_t len)
{
    vbx_dcache_flush(p, len);
    return VBX_UNCACHED_ADDR(p);
}

/* ---- timestamps (section 5.4): the 64-bit `time` CSR, which counts core clock cycles -------- */

typedef uint64_t vbx_timestamp_t;

static inline vbx_timestamp_t vbx_timestamp(void)
{
    uint32_t hi, lo, hi2;
    do {
        __asm__ volatile(".option push\n\t.option arch, +zicsr\n\t"
                         "csrr %0, timeh\n\tcsrr %1, time\n\tcsrr %2, timeh\n\t.option pop"
                         : "=r"(hi), "=r"(lo), "=r"(hi2));
    } while (hi != hi2);
    return ((vbx_timestamp_t)hi << 32) | lo;
}

/* Nothing to start: the counter always runs. */
static inline int vbx_timestamp_start(void)
{
    return 0;
}

/* Timestamp ticks per second: the core clock (system-control register CLOCK_HZ). */
static inline vbx_timestamp_t vbx_timestamp_freq(void)
{
    return VBX_SYSCTL_READ_(MXPSIM_SYSCTL_CLOCK_HZ);
}

/* MXP clock cycles in t timestamp ticks (t x core_freq / timestamp frequency). */
static inline vbx_timestamp_t vbx_mxp_cycles(vbx_timestamp_t t)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    vbx_timestamp_t freq = vbx_timestamp_freq();
    if (mxp == NULL || freq == 0 || (vbx_timestamp_t)mxp->core_freq == freq)
        return t;
    return (vbx_timestamp_t)((double)t * (double)mxp->core_freq / (double)freq);
}

#ifdef __cplusplus
}
#endif

#endif

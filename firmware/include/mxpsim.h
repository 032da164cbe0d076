/*
 * mxpsim.h - the simulated SoC as firmware sees it: the memory map, the system-control
 * registers and cache maintenance. Hand-kept; the test `firmware_header_matches_the_simulator`
 * (sim/tests) checks every value against the simulator's defaults.
 */
#ifndef MXPSIM_H
#define MXPSIM_H

#include <stdint.h>

/* Memory map (mxpsim defaults; see `mxpsim config --dump`). */
#define MXPSIM_DRAM_BASE        0x80000000u /* cached DRAM */
#define MXPSIM_DRAM_SIZE        0x04000000u /* 64 MiB */
#define MXPSIM_UNCACHED_ALIAS   0xC0000000u /* the same DRAM, bypassing the data cache */
#define MXPSIM_SYSCTL_BASE      0x40000000u /* system-control registers */
#define MXPSIM_MXP_PORT         0x40010000u /* MXP instruction port (256-byte window) */
#define MXPSIM_SCRATCHPAD       0x50000000u /* MXP scratchpad (aligned to its size) */

/* System-control registers (offsets; 32-bit accesses). */
#define MXPSIM_SYSCTL_CACHE_CTRL 0x0u /* write: whole-cache maintenance */
#define MXPSIM_SYSCTL_CACHE_LINE 0x4u /* read: data-cache line size in bytes */
#define MXPSIM_SYSCTL_CACHE_SIZE 0x8u /* read: data-cache size in bytes (0: no cache model) */
#define MXPSIM_SYSCTL_MXP_LANES  0xCu /* read: MXP vector lanes */
#define MXPSIM_SYSCTL_MXP_SCRATCHPAD_SIZE 0x10u /* read: scratchpad bytes */
#define MXPSIM_SYSCTL_MXP_FXP_FRAC_BITS 0x14u /* read: VMULFXP frac bits: byte 7:0, half 15:8, word 23:16 */
#define MXPSIM_SYSCTL_MXP_MAX_MASKED_VL 0x18u /* read: longest mask, in elements */
#define MXPSIM_SYSCTL_MXP_CUSTOM_LANES 0x1Cu /* read: VCUSTOM0 lanes 15:0, VCUSTOM1 lanes 31:16 */
#define MXPSIM_SYSCTL_CLOCK_HZ   0x20u /* read: core clock in Hz */
#define MXPSIM_CACHE_CLEAN_ALL   1u
#define MXPSIM_CACHE_FLUSH_ALL   2u
#define MXPSIM_CACHE_INVAL_ALL   3u

#define MXPSIM_SYSCTL(off) (*(volatile uint32_t *)(MXPSIM_SYSCTL_BASE + (off)))

/* The uncached alias of a cached DRAM pointer, and back. */
static inline void *mxpsim_uncached(const void *p)
{
    return (void *)((uintptr_t)p - MXPSIM_DRAM_BASE + MXPSIM_UNCACHED_ALIAS);
}

static inline void *mxpsim_cached(const void *p)
{
    return (void *)((uintptr_t)p - MXPSIM_UNCACHED_ALIAS + MXPSIM_DRAM_BASE);
}

/* Zicbom cache-block operations on the line holding p. Encoded with .insn so that the
 * ISA string stays exactly rv32im (see firmware/README.md). */
static inline void mxpsim_cbo_clean(const void *p)
{
    __asm__ volatile(".insn i 0x0f, 2, x0, %0, 1" : : "r"(p) : "memory");
}

static inline void mxpsim_cbo_flush(const void *p)
{
    __asm__ volatile(".insn i 0x0f, 2, x0, %0, 2" : : "r"(p) : "memory");
}

static inline void mxpsim_cbo_inval(const void *p)
{
    __asm__ volatile(".insn i 0x0f, 2, x0, %0, 0" : : "r"(p) : "memory");
}

/* Whole-cache maintenance. */
static inline void mxpsim_dcache_clean_all(void) { MXPSIM_SYSCTL(MXPSIM_SYSCTL_CACHE_CTRL) = MXPSIM_CACHE_CLEAN_ALL; }
static inline void mxpsim_dcache_flush_all(void) { MXPSIM_SYSCTL(MXPSIM_SYSCTL_CACHE_CTRL) = MXPSIM_CACHE_FLUSH_ALL; }
static inline void mxpsim_dcache_inval_all(void) { MXPSIM_SYSCTL(MXPSIM_SYSCTL_CACHE_CTRL) = MXPSIM_CACHE_INVAL_ALL; }

static inline uint32_t mxpsim_dcache_line_size(void) { return MXPSIM_SYSCTL(MXPSIM_SYSCTL_CACHE_LINE); }

#endif

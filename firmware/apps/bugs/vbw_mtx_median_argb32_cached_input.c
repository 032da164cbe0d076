/*
 * vbw_mtx_median_argb32_cached_input.c - injected bug in the port of vbw_mtx_median_argb32
 * (sdk-programs.md): vector_in, filtered in place, comes from malloc. The image copied into
 * it stays in dirty cache lines (never flushed) that race with the 2-D DMA-ins reading it
 * and the DMA-outs writing it back, and the print and the verification read it through the
 * cache (stale reads, lost writes).
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 */
#define BUG_CACHED_VECTOR_IN 1
#include "../vbw_mtx_median_argb32.c"

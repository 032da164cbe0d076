/*
 * vbw_mtx_median_cached_output.c - injected bug in the port of vbw_mtx_median_t (sdk-
 * programs.md): vector_out comes from malloc, so its cached zeroing (dirty lines, never
 * flushed) races with the 2-D DMA-out that writes the filtered rows, and the print and the
 * verification read it through the cache.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_VECTOR_OUT 1
#include "../vbw_mtx_median.c"

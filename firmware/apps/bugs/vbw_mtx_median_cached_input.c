/*
 * vbw_mtx_median_cached_input.c - injected bug in the port of vbw_mtx_median_t (sdk-
 * programs.md): vector_in comes from malloc, so the image copied into it stays in dirty
 * cache lines (never flushed) that race with the 2-D DMA-ins reading it.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_VECTOR_IN 1
#include "../vbw_mtx_median.c"

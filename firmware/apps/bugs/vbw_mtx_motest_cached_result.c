/*
 * vbw_mtx_motest_cached_result.c - injected bug in the port of vbw_mtx_motest (sdk-
 * programs.md): vector_result comes from malloc, so its cached zeroing races with the DMA-
 * out.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_RESULT 1
#include "../vbw_mtx_motest.c"

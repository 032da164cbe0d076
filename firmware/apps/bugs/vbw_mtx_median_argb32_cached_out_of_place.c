/*
 * vbw_mtx_median_argb32_cached_out_of_place.c - injected bug in the port of
 * vbw_mtx_median_argb32 (sdk-programs.md): the filter writes into vector_out instead of in
 * place, and vector_out comes from malloc. Its cached zeroing (dirty lines, never flushed)
 * races with the 2-D DMA-outs, and the print and the verification read it through the
 * cache. (With vector_out shared, the out-of-place call alone is the race-free negative
 * control of the brief: build the port with -DOUT_OF_PLACE.)
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_OUT_OF_PLACE 1
#include "../vbw_mtx_median_argb32.c"

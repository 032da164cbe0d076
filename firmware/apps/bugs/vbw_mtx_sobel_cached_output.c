/*
 * vbw_mtx_sobel_cached_output.c - injected bug in the port of vbw_mtx_sobel (sdk-
 * programs.md): vbx_output comes from malloc and is never invalidated, so the comparison's
 * cached reads may use lines fetched before the DMA-outs wrote them.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=benign b-before-a=benign
 */
#define BUG_CACHED_OUTPUT 1
#include "../vbw_mtx_sobel.c"

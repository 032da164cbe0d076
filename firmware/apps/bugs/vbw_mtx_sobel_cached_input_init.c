/*
 * vbw_mtx_sobel_cached_input_init.c - injected bug in the port of vbw_mtx_sobel (sdk-
 * programs.md): the image is written through the cached view scalar_input instead of the
 * uncached input, and never flushed, so its dirty lines race with the DMAs that read the rows.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_INPUT_INIT 1
#include "../vbw_mtx_sobel.c"

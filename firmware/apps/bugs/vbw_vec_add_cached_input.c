/*
 * vbw_vec_add_cached_input.c - injected bug in the port of vbw_vec_add (sdk-programs.md):
 * vector_in1 comes from malloc and is never flushed, so its dirty lines race with the DMA
 * that reads it.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 */
#define BUG_CACHED_VECTOR_IN1 1
#include "../vbw_vec_add.c"

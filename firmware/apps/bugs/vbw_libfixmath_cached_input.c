/*
 * vbw_libfixmath_cached_input.c - injected bug in the port of vbw_libfixmath (sdk-programs.md):
 * vector_in1 comes from malloc and is never flushed, so the dirty lines of its cached
 * initialisation race with the DMA that reads it.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=silent-corruption
 */
#define BUG_CACHED_VECTOR_IN1 1
#include "../vbw_libfixmath.c"

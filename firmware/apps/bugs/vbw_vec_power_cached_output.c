/*
 * vbw_vec_power_cached_output.c - injected bug in the port of vbw_vec_power (sdk-programs.md):
 * vector_out comes from malloc, so the dirty lines of its cached zeroing race with the
 * DMA-out that writes it, and the CPU's reads of the result may hit stale cached lines.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_VECTOR_OUT 1
#include "../vbw_vec_power.c"

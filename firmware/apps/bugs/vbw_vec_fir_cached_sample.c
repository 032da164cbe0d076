/*
 * vbw_vec_fir_cached_sample.c - injected bug in the port of vbw_vec_fir_t (sdk-programs.md
 * section 2.11): sample comes from malloc and is never flushed, so the dirty lines its
 * initialising copy (and padding) leave in the cache race with the DMA-in of the samples,
 * for every element type.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_SAMPLE 1
#include "../vbw_vec_fir.c"

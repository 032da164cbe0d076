/*
 * vbw_mtx_fir_cached_input.c - injected bug in the port of vbw_mtx_fir_t (sdk-programs.md
 * section 2.5): vector_in comes from malloc and is never flushed, so the dirty lines its
 * initialising copy leaves in the cache race with the DMA-ins that read the image rows.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 */
#define BUG_CACHED_VECTOR_IN 1
#include "../vbw_mtx_fir.c"

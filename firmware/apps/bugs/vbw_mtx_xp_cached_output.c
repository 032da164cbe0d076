/*
 * vbw_mtx_xp_cached_output.c - injected bug in the port of vbw_mtx_xp (sdk-programs.md):
 * vector_out comes from malloc, so after each shape's flush its lines may be fetched into the
 * cache before the DMA-out writes memory, and the verification may read those stale lines.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 */
#define BUG_CACHED_VECTOR_OUT 1
#include "../vbw_mtx_xp.c"

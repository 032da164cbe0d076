/*
 * vbw_mtx_xp_no_routine_sync.c - injected bug in the port of vbw_mtx_xp (sdk-programs.md):
 * no vbx_sync() after the transpose routine, so verifying vector_out races with its DMA-out.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 */
#define BUG_NO_ROUTINE_SYNC 1
#include "../vbw_mtx_xp.c"

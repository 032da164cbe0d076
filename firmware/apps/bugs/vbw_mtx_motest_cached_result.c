/*
 * vbw_mtx_motest_cached_result.c - injected bug in the port of vbw_mtx_motest (sdk-
 * programs.md): vector_result comes from malloc, so its cached zeroing races with the DMA-
 * out.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 */
#define BUG_CACHED_RESULT 1
#include "../vbw_mtx_motest.c"

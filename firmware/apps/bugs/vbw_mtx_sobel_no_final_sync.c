/*
 * vbw_mtx_sobel_no_final_sync.c - injected bug in the port of vbw_mtx_sobel (sdk-
 * programs.md): no vbx_sync() after the vector routine, so the comparison's reads of
 * vbx_output race with the DMA-outs still queued (the border columns above all).
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 */
#define BUG_NO_FINAL_SYNC 1
#include "../vbw_mtx_sobel.c"

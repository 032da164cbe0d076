/*
 * vbw_mtx_motest_no_first_sync.c - injected bug in the port of vbw_mtx_motest (sdk-
 * programs.md): the first vbx_sync() after the vector routine is removed, so printing
 * vector_result races with its DMA-out.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=benign
 */
#define BUG_NO_FIRST_SYNC 1
#include "../vbw_mtx_motest.c"

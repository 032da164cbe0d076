/*
 * vbw_libfixmath_no_div_sync.c - injected bug in the port of vbw_libfixmath (sdk-programs.md):
 * no vbx_sync() after the division's DMA-out, so printing and range-checking vector_out race
 * with it.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 */
#define BUG_NO_DIV_SYNC 1
#include "../vbw_libfixmath.c"

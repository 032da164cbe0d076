/*
 * vbw_vec_add_no_final_sync.c - injected bug in the port of vbw_vec_add (sdk-programs.md):
 * no vbx_sync() after the DMA-out, so printing and verifying vector_out race with it.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 */
#define BUG_NO_FINAL_SYNC 1
#include "../vbw_vec_add.c"

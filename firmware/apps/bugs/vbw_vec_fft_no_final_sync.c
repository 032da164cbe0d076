/*
 * vbw_vec_fft_no_final_sync.c - injected bug in the port of vbw_vec_fft (sdk-programs.md):
 * the vbx_sync() at the end of the vector FFT routine is removed, so it returns with its
 * DMA-out pending: the program's reads of the results, the next transform's CPU work and the
 * next size's uncached writes to the input and twiddle buffers race with the DMAs.
 * The switch is in the vbxware routine, so this file compiles the routine into the program
 * (whose definitions then keep libvbxware.a's copy out of the link).
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 spr/dma_r a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 */
#define BUG_NO_FINAL_SYNC 1
#include "../vbxware/vbw_vec_fft.c"
#include "../vbw_vec_fft.c"

/*
 * vbw_vec_fft_no_range_check_sync.c - injected bug in the port of vbw_vec_fft (sdk-
 * programs.md): the vbx_sync() of the inverse transforms' range check is removed, so the CPU
 * reads the count from the scratchpad while the accumulate that writes it may be pending.
 * The switch is in the vbxware routine, so this file compiles the routine into the program
 * (whose definitions then keep libvbxware.a's copy out of the link).
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 spr/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 */
#define BUG_NO_RANGE_CHECK_SYNC 1
#include "../vbxware/vbw_vec_fft.c"
#include "../vbw_vec_fft.c"

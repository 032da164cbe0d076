/*
 * vbw_vec_fft_cached_twiddle.c - injected bug in the port of vbw_vec_fft (sdk-programs.md):
 * the twiddle block comes from malloc, so the CPU's twiddle set-up and decimation stay in
 * dirty cache lines while every vector transform DMAs the twiddles in from memory.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 */
#define BUG_CACHED_TWIDDLE 1
#include "../vbw_vec_fft.c"

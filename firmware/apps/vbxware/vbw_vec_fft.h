/*
 * vbw_vec_fft.h - vbxware: Q15 fixed-point radix-2 complex FFT on the MXP (C port of the
 * vector routine of the SDK's FFT sweep, bmark/vbw_vec_fft; sdk-programs.md section 2.10).
 * Same conventions as the scalar fix_fft_scalar.h: forward transforms halve at every stage
 * (result = DFT / n), inverse transforms halve a stage only when some value exceeds 16383
 * before it and return how many stages they halved.
 */
#ifndef VBW_VEC_FFT_H
#define VBW_VEC_FFT_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Checks, once before the sweep, that the scratchpad holds the working set of
 * vector_fix_fft_dif_long_fly for every size up to 2^max_m points (about 14 bytes a point).
 * With a scratchpad of 128 KB or more that is always so for the sweep's 8192 points. The
 * original switches the larger sizes of smaller scratchpads to split-and-combine variants
 * (and then uses the large_mem buffer); those are not ported: this returns
 * VBW_ERROR_SP_ALLOC_FAILED instead.
 */
int vector_fix_fft_large_init(int max_m);

/*
 * The FFT of the 2^m points fr + i fi (host buffers, shared) into fr2 + i fi2, with the
 * 2^(m-1) Q15 twiddles tw_r + i tw_i = exp(-+2 pi i j / 2^m) (host buffers, shared; the
 * inverse passes the conjugates). 3 <= m. DMAs the inputs in, computes in the scratchpad,
 * DMAs the result out, then waits for everything (vbx_sync) and releases the whole
 * scratchpad (vbx_sp_free). Returns the scale (always 0 for a forward transform), or
 * VBW_ERROR_SP_ALLOC_FAILED when the scratchpad is too small.
 */
int vector_fix_fft_dif_long_fly(short *fr, short *fi, short *fr2, short *fi2, short *tw_r, short *tw_i,
                                int m, int inverse);

#ifdef __cplusplus
}
#endif

#endif

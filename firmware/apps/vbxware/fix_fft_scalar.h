/*
 * fix_fft_scalar.h - the CPU side of the FFT sweep (port of the SDK's bmark/vbw_vec_fft
 * scalar file): Q15 fixed-point radix-2 FFTs on 16-bit data, and the real-FFT untangle.
 *
 * Conventions: a complex sequence of n = 2^m points is either two arrays (fr, fi) or, for
 * the Stockham routines, one "split" array of 2n shorts (real parts, then imaginary parts).
 * Twiddles are Q15; w^j = exp(-2 pi i j / n) for the forward transforms, its conjugate for the
 * inverse ones. Forward transforms halve at every stage (result = DFT / n). Inverse
 * transforms halve a stage only when some value exceeds 16383 in magnitude before it, and
 * return how many stages they halved (the "scale"; result = IDFT / 2^scale).
 */
#ifndef FIX_FFT_SCALAR_H
#define FIX_FFT_SCALAR_H

#ifdef __cplusplus
extern "C" {
#endif

/* The sine table: 3/4 of a period of FIX_FFT_N_WAVE points. */
#define FIX_FFT_LOG2_N_WAVE 13
#define FIX_FFT_N_WAVE (1 << FIX_FFT_LOG2_N_WAVE)
#define FIX_FFT_SINEWAVE_LEN (FIX_FFT_N_WAVE - FIX_FFT_N_WAVE / 4)

/* Q15 product, truncated: (a * b) >> 15. */
#define FIX_MULT(a, b) ((short)(((int)(a) * (int)(b)) >> 15))

/* sinewave[i] = round(32767 sin(2 pi i / N_WAVE)) for i <= N_WAVE/4, the rest by symmetry. */
void fix_fft_make_sinewave(short *sinewave);

/* In-place Cooley-Tukey (bit reversal, then decimation-in-time stages) of 2^m <= N_WAVE
 * points, twiddles read from the sine table. Returns the scale (0 for forward), or -1 when
 * 2^m > N_WAVE. */
int fix_fft(short *fr, short *fi, int m, int inverse, const short *sinewave);

/* Stockham (self-sorting) decimation-in-frequency FFT of 2^m points, split layout. Reads x,
 * uses x and y as its two work buffers, and leaves the result in y (x is destroyed).
 * tw_r/tw_i hold the 2^(m-1) twiddles of a 2^m-point transform. Returns the scale. */
int fix_fft_stockham(short *x, short *y, int m, int inverse, const short *tw_r, const short *tw_i);

/* The real-FFT "untangle" on a packed sequence z[k] = x[2k] + i x[2k+1] of half_n = n/2
 * points, in place (split layout: re[k], im[k]):
 *   Y[k] = E[k] + W^k O[k],  E = (z[k] + conj z[half_n-k]) / 2,
 *   O = (z[k] - conj z[half_n-k]) / 2i,  W = exp(-2 pi i / n),
 * with Y[0] packed as (E[0] + O[0]) + i (E[0] - O[0]). The twiddle W^k is computed with
 * sin() and cos(). Results are rounded and saturated to 16 bits. */
void fix_fft_untangle(short *re, short *im, int half_n);

/* Its inverse ("retangle"): z[k] = E[k] + i O[k], E = (Y[k] + conj Y[half_n-k]) / 2,
 * O = (Y[k] - conj Y[half_n-k]) W^-k / 2, in place. */
void fix_fft_retangle(short *re, short *im, int half_n);

#ifdef __cplusplus
}
#endif

#endif

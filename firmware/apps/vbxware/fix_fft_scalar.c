/*
 * fix_fft_scalar.c - the CPU side of the FFT sweep: Q15 fixed-point radix-2 FFTs and the
 * real-FFT untangle (see fix_fft_scalar.h for the conventions).
 *
 * Scaling: a radix-2 stage can double the magnitude of its data, so forward transforms
 * halve at every stage (log2 n halvings: an overall 1/n, spread over the stages to keep the
 * most bits), and inverse transforms halve only the stages whose input holds a value above
 * 16383 (one stage more could overflow 16 bits), counting them.
 */
#include <math.h>
#include <stdlib.h>

#include "fix_fft_scalar.h"

#define Q15_MAX 32767
#define Q15_MIN (-32768)
#define HALF_RANGE 16383 /* largest magnitude a stage may double without overflowing */

void fix_fft_make_sinewave(short *sinewave)
{
    const int quarter = FIX_FFT_N_WAVE / 4, half = FIX_FFT_N_WAVE / 2;
    int i;

    for (i = 0; i <= quarter; i++)
        sinewave[i] = (short)round(Q15_MAX * sin(2.0 * M_PI * i / FIX_FFT_N_WAVE));
    for (; i <= half; i++)
        sinewave[i] = sinewave[half - i];
    for (; i < FIX_FFT_SINEWAVE_LEN; i++)
        sinewave[i] = (short)-sinewave[i - half];
}

/* Whether any of the count values exceeds HALF_RANGE in magnitude. */
static int out_of_range(const short *a, int count)
{
    for (int i = 0; i < count; i++)
        if (abs(a[i]) > HALF_RANGE)
            return 1;
    return 0;
}

/* Stage scaling: forward always halves; inverse when the stage's input needs it. */
static int stage_halves(int inverse, const short *a, int count, const short *b, int count_b)
{
    if (!inverse)
        return 1;
    return out_of_range(a, count) || (b != 0 && out_of_range(b, count_b));
}

/* Puts x[i] at x[bit-reversed i] for n = 2^m points. */
static void bit_reverse(short *fr, short *fi, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            short t = fr[i];
            fr[i] = fr[j];
            fr[j] = t;
            t = fi[i];
            fi[i] = fi[j];
            fi[j] = t;
        }
    }
}

/* One decimation-in-time stage: butterflies of span l with the twiddles w_2l^j, which are
 * every (N_WAVE / 2l)-th point of the sine table (its cosine part starts a quarter in). */
static void dit_stage(short *fr, short *fi, int n, int l, int inverse, int shift, const short *sinewave)
{
    const int table_step_log2 = FIX_FFT_LOG2_N_WAVE - 1 - __builtin_ctz((unsigned)l);

    for (int j = 0; j < l; j++) {
        const int t = j << table_step_log2;
        short wr = sinewave[t + FIX_FFT_N_WAVE / 4];
        short wi = inverse ? sinewave[t] : (short)-sinewave[t];
        if (shift) {
            wr >>= 1;
            wi >>= 1;
        }
        for (int u = j; u < n; u += 2 * l) {
            const int v = u + l;
            short tr = (short)(FIX_MULT(wr, fr[v]) - FIX_MULT(wi, fi[v]));
            short ti = (short)(FIX_MULT(wr, fi[v]) + FIX_MULT(wi, fr[v]));
            short qr = fr[u], qi = fi[u];
            if (shift) {
                qr >>= 1;
                qi >>= 1;
            }
            fr[v] = (short)(qr - tr);
            fi[v] = (short)(qi - ti);
            fr[u] = (short)(qr + tr);
            fi[u] = (short)(qi + ti);
        }
    }
}

int fix_fft(short *fr, short *fi, int m, int inverse, const short *sinewave)
{
    const int n = 1 << m;
    int scale = 0;

    if (n > FIX_FFT_N_WAVE)
        return -1;
    bit_reverse(fr, fi, n);
    for (int l = 1; l < n; l <<= 1) {
        int shift = stage_halves(inverse, fr, n, fi, n);
        scale += inverse && shift;
        dit_stage(fr, fi, n, l, inverse, shift, sinewave);
    }
    return scale;
}

/* One Stockham DIF stage on split arrays of n points: sub-transforms of 2*half points
 * interleaved with the given stride; the sums go to the even outputs, the twiddled
 * differences (twiddle w_n^(p*stride)) to the odd ones, so the output is self-sorted. */
static void stockham_stage(const short *src, short *dst, int n, int half, int stride, int shift,
                           const short *tw_r, const short *tw_i)
{
    const short *sr = src, *si = src + n;
    short *dr = dst, *di = dst + n;

    for (int p = 0; p < half; p++) {
        const short wr = tw_r[p * stride], wi = tw_i[p * stride];
        for (int q = 0; q < stride; q++) {
            const int a = q + stride * p, b = a + stride * half;
            const int even = q + stride * 2 * p, odd = even + stride;
            short ar = sr[a], ai = si[a], br = sr[b], bi = si[b];
            if (shift) {
                ar >>= 1;
                ai >>= 1;
                br >>= 1;
                bi >>= 1;
            }
            const short xr = (short)(ar - br), xi = (short)(ai - bi);
            dr[even] = (short)(ar + br);
            di[even] = (short)(ai + bi);
            dr[odd] = (short)(FIX_MULT(xr, wr) - FIX_MULT(xi, wi));
            di[odd] = (short)(FIX_MULT(xr, wi) + FIX_MULT(xi, wr));
        }
    }
}

int fix_fft_stockham(short *x, short *y, int m, int inverse, const short *tw_r, const short *tw_i)
{
    const int n = 1 << m;
    short *src = x, *dst = y;
    int scale = 0;

    for (int half = n / 2, stride = 1; half >= 1; half /= 2, stride *= 2) {
        int shift = stage_halves(inverse, src, 2 * n, 0, 0);
        scale += inverse && shift;
        stockham_stage(src, dst, n, half, stride, shift, tw_r, tw_i);
        short *t = src;
        src = dst;
        dst = t;
    }
    if (src != y)
        for (int i = 0; i < 2 * n; i++)
            y[i] = src[i];
    return scale;
}

/* Nearest 16-bit value. */
static short q15_round_sat(double v)
{
    double r = floor(v + 0.5);
    return (short)(r > Q15_MAX ? Q15_MAX : r < Q15_MIN ? Q15_MIN : r);
}

void fix_fft_untangle(short *re, short *im, int half_n)
{
    const double step = M_PI / half_n; /* 2 pi / n */

    /* Y[0] and its packed partner Y[half_n]. */
    const double a = re[0], b = im[0];
    re[0] = q15_round_sat(a + b);
    im[0] = q15_round_sat(a - b);

    /* The pairs k, half_n - k (k = half_n / 2 pairs with itself). */
    for (int k = 1; k <= half_n / 2; k++) {
        const int j = half_n - k;
        const double er = (re[k] + re[j]) / 2.0, ei = (im[k] - im[j]) / 2.0;
        const double or_ = (im[k] + im[j]) / 2.0, oi = (re[j] - re[k]) / 2.0;
        const double c = cos(k * step), s = sin(k * step); /* W^k = c - i s */
        const double pr = c * or_ + s * oi, pi = c * oi - s * or_;
        re[k] = q15_round_sat(er + pr);
        im[k] = q15_round_sat(ei + pi);
        re[j] = q15_round_sat(er - pr);
        im[j] = q15_round_sat(pi - ei);
    }
}

void fix_fft_retangle(short *re, short *im, int half_n)
{
    const double step = M_PI / half_n;

    const double a = re[0], b = im[0];
    re[0] = q15_round_sat((a + b) / 2.0);
    im[0] = q15_round_sat((a - b) / 2.0);

    for (int k = 1; k <= half_n / 2; k++) {
        const int j = half_n - k;
        const double er = (re[k] + re[j]) / 2.0, ei = (im[k] - im[j]) / 2.0;
        const double dr = (re[k] - re[j]) / 2.0, di = (im[k] + im[j]) / 2.0;
        const double c = cos(k * step), s = sin(k * step); /* W^-k = c + i s */
        const double or_ = dr * c - di * s, oi = dr * s + di * c;
        re[k] = q15_round_sat(er - oi);
        im[k] = q15_round_sat(ei + or_);
        re[j] = q15_round_sat(er + oi);
        im[j] = q15_round_sat(or_ - ei);
    }
}

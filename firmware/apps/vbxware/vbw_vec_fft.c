/*
 * vbw_vec_fft.c - vbxware: Q15 radix-2 complex FFT on the MXP, "DIF long fly" method
 * (vector_fix_fft_dif_long_fly of the SDK's FFT sweep; sdk-programs.md section 2.10). Written
 * against the legacy 2016 API like the original, through the shims of vbw_vec_fft_legacy.h
 * (4-argument vbx_set_2D with the row count first, vbx_2D).
 *
 * Method, for n = 2^m points, split as n = P x Q with P = 2^p, p = floor(m/2) and
 * Q = 2^q, q = m - p:
 *
 *   1. DMA in fr, fi and the n/2 twiddles tw_r, tw_i (6 DMAs in all, with the 2 out).
 *   2. p decimation-in-frequency stages on long vectors. Stage s splits each of its 2^s
 *      groups of 2h points (h = n / 2^(s+1)) into the sums of its halves and their
 *      differences times w_2h^j: one 2-D instruction per operation, a row per group, the
 *      twiddle vector reused by every row (increment 0). The stages are self-sorting
 *      (Stockham): sums go to the first half of the other data pair, twiddled differences to
 *      the second, so group r always holds the points whose transform gives
 *      X[r + 2^s k]. After each stage the twiddle vector is decimated in place (a VMOV
 *      reading pairs of halves as words and keeping the low half: w_2h^(2j) = w_h^j).
 *   3. An in-scratchpad transpose of the P x Q matrix (2-D VMOVs of vector length 1, one per
 *      column), which puts column j in row bitrev(j): the Q-point transforms of the
 *      columns now run across rows, on rows of P points, in bit-reversed order.
 *   4. q decimation-in-time stages across rows. Stage s needs the h = 2^s twiddles
 *      w_2h^t; the CPU reads each from the decimated twiddle vector in the scratchpad and
 *      broadcasts it over P points with an SV VMOV; then every operation is one 2-D
 *      instruction (a row per block of 2h matrix rows). The result is in natural order.
 *   5. DMA out to fr2, fi2; vbx_sync(); vbx_sp_free().
 *
 * Scaling, at the start of every stage: a forward transform halves all the data (VSHR by
 * 1); an inverse one first runs a range check (|x|, 16383 - |x| with its borrow flag, an
 * accumulated conditional move that counts the borrows, vbx_sync(), a CPU load of the count
 * from the scratchpad) and halves only when some value exceeds 16383.
 *
 * Synchronisation, as in the original: the range check's vbx_sync() and the one at the end,
 * nothing else. In a forward transform, therefore, the CPU loads of the twiddles in step 4
 * are NOT ordered after the DMA and the VMOVs that wrote them: the original's latent race
 * (the SDK's simulator hid it by executing every instruction at once). In an inverse
 * transform the range check of the first DIT stage orders them.
 *
 * Injected-bug switches (bugs/vbw_vec_fft_*.c): BUG_NO_RANGE_CHECK_SYNC (the count is read
 * before the accumulate is known to be done), BUG_NO_FINAL_SYNC (the routine returns with
 * its DMA-out still pending).
 *
 * The original's vbx_vec_rev.h / vbx_vector_reverse_half_fast (not in the SDK) served the
 * real-FFT untangle; this port untangles on the CPU (fix_fft_untangle), so it has no use for
 * it.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_vec_fft.h"
#include "vbw_vec_fft_legacy.h"

vbx_legacy_2D_t vbx_legacy_2D_state;

#define HALF_RANGE 16383 /* largest magnitude a stage may double without overflowing */
#define HALF_BYTES ((int)sizeof(vbx_half_t))

/* One transform's scratchpad and shape. */
typedef struct {
    int n;          /* points */
    int p, q;       /* DIF stages, DIT stages */
    int P, Q;       /* 2^p groups of 2^q points after the DIF stages */
    int inverse;
    int scale;      /* stages halved so far (inverse) */
    vbx_half_t *pair[2][2]; /* two data pairs [pair][0 = re, 1 = im]; re, im consecutive */
    vbx_half_t *tw_r, *tw_i;       /* n/2 twiddles, decimated stage by stage */
    vbx_half_t *tmp;               /* n; tmp, bc_r, bc_i are consecutive: 2n halves */
    vbx_half_t *bc_r, *bc_i;       /* n/2 each: broadcast twiddles of a DIT stage */
    vbx_word_t *count;             /* the range check's result */
} fft_t;

/* Bytes of the scratchpad working set for 2^m points, as fft_alloc pads them. */
static int fft_working_set(int m)
{
    const int n = 1 << m;
    const int granule = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
    const int vec_n = VBX_PAD_UP(n * HALF_BYTES, granule);
    const int vec_half = VBX_PAD_UP(n / 2 * HALF_BYTES, granule);
    return 5 * vec_n + 4 * vec_half + VBX_PAD_UP((int)sizeof(vbx_word_t), granule);
}

int vector_fix_fft_large_init(int max_m)
{
    return fft_working_set(max_m) <= VBX_SCRATCHPAD_SIZE ? VBW_SUCCESS : VBW_ERROR_SP_ALLOC_FAILED;
}

/* The allocation order of the original: 4 data vectors, 2 twiddle vectors, the temporary,
 * 2 broadcast vectors (and the count word). */
static int fft_alloc(fft_t *f, int m, int inverse)
{
    const int n = 1 << m;

    f->n = n;
    f->p = m / 2;
    f->q = m - f->p;
    f->P = 1 << f->p;
    f->Q = 1 << f->q;
    f->inverse = inverse;
    f->scale = 0;
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 2; c++)
            f->pair[i][c] = vbx_sp_malloc(n * HALF_BYTES);
    f->tw_r = vbx_sp_malloc(n / 2 * HALF_BYTES);
    f->tw_i = vbx_sp_malloc(n / 2 * HALF_BYTES);
    f->tmp = vbx_sp_malloc(n * HALF_BYTES);
    f->bc_r = vbx_sp_malloc(n / 2 * HALF_BYTES);
    f->bc_i = vbx_sp_malloc(n / 2 * HALF_BYTES);
    f->count = vbx_sp_malloc(sizeof(vbx_word_t));

    /* A failed request returns NULL but a later, smaller one may fit: check them all. */
    void *const all[] = { f->pair[0][0], f->pair[0][1], f->pair[1][0], f->pair[1][1], f->tw_r,
                          f->tw_i, f->tmp, f->bc_r, f->bc_i, f->count };
    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i] == NULL)
            return VBW_ERROR_SP_ALLOC_FAILED;
    return VBW_SUCCESS;
}

/*
 * Whether any of the 2n halves at data (a pair: re, then im) exceeds HALF_RANGE in
 * magnitude. |x| is exact as an unsigned half even for -32768, so the unsigned
 * 16383 - |x| borrows exactly when |x| > 16383, and the accumulated VCMV_LTZ (unsigned:
 * "flag set") counts those elements.
 */
static int fft_range_exceeded(fft_t *f, vbx_half_t *data)
{
    vbx_set_vl(2 * f->n);
    vbx(SVH, VABSDIFF, f->tmp, 0, data);
    vbx(SVHU, VSUB, f->tmp, HALF_RANGE, f->tmp);
    vbx_acc(SVWHU, VCMV_LTZ, f->count, 1, f->tmp);
#ifndef BUG_NO_RANGE_CHECK_SYNC
    vbx_sync();
#endif
    return *f->count != 0;
}

/* A stage's scaling of the pair at data (re, then im): see the file comment. */
static void fft_scale_stage(fft_t *f, vbx_half_t *data)
{
    if (f->inverse) {
        if (!fft_range_exceeded(f, data))
            return;
        f->scale++;
    }
    /* Legacy operand order: vbx(SVH, VSHR, data, 1, data). */
    vbx_set_vl(2 * f->n);
    vbx(VSH, VSHR, data, data, 1);
}

/*
 * out = x * w (complex, Q15) over `rows` rows of vl points, with the row increments (bytes)
 * of out, x and w; the scratch vector has out's layout. Products by VMULFXP (rounded,
 * saturated), then combined.
 */
static void fft_complex_mul(vbx_half_t *out_r, vbx_half_t *out_i, vbx_half_t *x_r, vbx_half_t *x_i,
                            vbx_half_t *w_r, vbx_half_t *w_i, vbx_half_t *scratch, int rows, int vl,
                            int out_inc, int x_inc, int w_inc)
{
    vbx_set_vl(vl);
    vbx_set_2D(rows, out_inc, x_inc, w_inc);
    vbx_2D(VVH, VMULFXP, out_r, x_r, w_r);
    vbx_2D(VVH, VMULFXP, scratch, x_i, w_i);
    vbx_set_2D(rows, out_inc, out_inc, out_inc);
    vbx_2D(VVH, VSUB, out_r, out_r, scratch);

    vbx_set_2D(rows, out_inc, x_inc, w_inc);
    vbx_2D(VVH, VMULFXP, out_i, x_r, w_i);
    vbx_2D(VVH, VMULFXP, scratch, x_i, w_r);
    vbx_set_2D(rows, out_inc, out_inc, out_inc);
    vbx_2D(VVH, VADD, out_i, out_i, scratch);
}

/* Keeps every second twiddle: count words read, their low halves written in place (the
 * destination never passes the source). Legacy mode name: VVWH. */
static void fft_decimate_twiddles(fft_t *f, int count)
{
    vbx_set_vl(count);
    vbx(VVHW, VMOV, f->tw_r, f->tw_r, 0);
    vbx(VVHW, VMOV, f->tw_i, f->tw_i, 0);
}

/* DIF stage s from pair src to pair dst (see the file comment, step 2). */
static void fft_dif_stage(fft_t *f, int s, vbx_half_t *const *src, vbx_half_t *const *dst)
{
    const int groups = 1 << s, h = f->n >> (s + 1), half = f->n / 2;
    vbx_half_t *diff_r = f->tmp, *diff_i = f->tmp + half;

    fft_scale_stage(f, src[0]);

    /* Row r: top = src + 2hr, bottom = top + h; the outputs are packed (increment h). */
    vbx_set_vl(h);
    vbx_set_2D(groups, h * HALF_BYTES, 2 * h * HALF_BYTES, 2 * h * HALF_BYTES);
    vbx_2D(VVH, VSUB, diff_r, src[0], src[0] + h);
    vbx_2D(VVH, VSUB, diff_i, src[1], src[1] + h);
    vbx_2D(VVH, VADD, dst[0], src[0], src[0] + h);
    vbx_2D(VVH, VADD, dst[1], src[1], src[1] + h);

    /* The twiddled differences, into dst's second half (bc_r is free until step 4). */
    fft_complex_mul(dst[0] + half, dst[1] + half, diff_r, diff_i, f->tw_r, f->tw_i, f->bc_r, groups, h,
                    h * HALF_BYTES, h * HALF_BYTES, 0);

    fft_decimate_twiddles(f, h / 2);
}

/* i with its low `bits` bits reversed. */
static int fft_bitrev(int i, int bits)
{
    int r = 0;
    for (int b = 0; b < bits; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

/* Step 3: column j of the P x Q matrix in src becomes row bitrev(j) of the Q x P one. */
static void fft_transpose(fft_t *f, vbx_half_t *const *src, vbx_half_t *const *dst)
{
    vbx_set_vl(1);
    vbx_set_2D(f->P, HALF_BYTES, f->Q * HALF_BYTES, 0);
    for (int j = 0; j < f->Q; j++) {
        const int row = fft_bitrev(j, f->q) * f->P;
        vbx_2D(VVH, VMOV, dst[0] + row, src[0] + j, 0);
        vbx_2D(VVH, VMOV, dst[1] + row, src[1] + j, 0);
    }
}

/*
 * The h twiddles w_2h^t = w_Q^(t Q / 2h) of a DIT stage, each over P points: twiddle t at
 * bc + tP. The values come from CPU loads of the scratchpad twiddle vector, in a forward
 * transform without a vbx_sync() after the DMA and the VMOVs that wrote it (the original's
 * latent race; see the file comment).
 */
static void fft_broadcast_twiddles(fft_t *f, int h)
{
    const int step = f->Q / (2 * h);

    vbx_set_vl(f->P);
    for (int t = 0; t < h; t++) {
        const vbx_half_t wr = f->tw_r[t * step], wi = f->tw_i[t * step];
        vbx(SVH, VMOV, f->bc_r + t * f->P, wr, 0);
        vbx(SVH, VMOV, f->bc_i + t * f->P, wi, 0);
    }
}

/* DIT stage s in place on pair d (Q rows of P points); scratch: n free halves. */
static void fft_dit_stage(fft_t *f, int s, vbx_half_t *const *d, vbx_half_t *scratch)
{
    const int h = 1 << s, blocks = f->Q / (2 * h), span = h * f->P, half = f->n / 2;
    vbx_half_t *t_r = f->tmp, *t_i = f->tmp + half;

    fft_scale_stage(f, d[0]);
    fft_broadcast_twiddles(f, h);

    /* Row b: the top h matrix rows at d + 2 b span, the bottom h rows right after them. */
    fft_complex_mul(t_r, t_i, d[0] + span, d[1] + span, f->bc_r, f->bc_i, scratch, blocks, span,
                    span * HALF_BYTES, 2 * span * HALF_BYTES, 0);

    vbx_set_vl(span);
    vbx_set_2D(blocks, 2 * span * HALF_BYTES, 2 * span * HALF_BYTES, span * HALF_BYTES);
    vbx_2D(VVH, VSUB, d[0] + span, d[0], t_r);
    vbx_2D(VVH, VADD, d[0], d[0], t_r);
    vbx_2D(VVH, VSUB, d[1] + span, d[1], t_i);
    vbx_2D(VVH, VADD, d[1], d[1], t_i);
}

int vector_fix_fft_dif_long_fly(short *fr, short *fi, short *fr2, short *fi2, short *tw_r, short *tw_i,
                                int m, int inverse)
{
    fft_t f;

    if (fft_alloc(&f, m, inverse) != VBW_SUCCESS) {
        vbx_sp_free();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    const int n = f.n;

    vbx_dma_to_vector(f.pair[0][0], fr, n * HALF_BYTES);
    vbx_dma_to_vector(f.pair[0][1], fi, n * HALF_BYTES);
    vbx_dma_to_vector(f.tw_r, tw_r, n / 2 * HALF_BYTES);
    vbx_dma_to_vector(f.tw_i, tw_i, n / 2 * HALF_BYTES);

    int cur = 0;
    for (int s = 0; s < f.p; s++, cur ^= 1)
        fft_dif_stage(&f, s, f.pair[cur], f.pair[cur ^ 1]);
    fft_transpose(&f, f.pair[cur], f.pair[cur ^ 1]);
    for (int s = 0; s < f.q; s++)
        fft_dit_stage(&f, s, f.pair[cur ^ 1], f.pair[cur][0]);

    vbx_dma_to_host(fr2, f.pair[cur ^ 1][0], n * HALF_BYTES);
    vbx_dma_to_host(fi2, f.pair[cur ^ 1][1], n * HALF_BYTES);
#ifndef BUG_NO_FINAL_SYNC
    vbx_sync();
#endif
    vbx_sp_free();
    return f.scale;
}

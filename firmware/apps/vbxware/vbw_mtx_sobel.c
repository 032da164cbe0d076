/*
 * vbw_mtx_sobel.c - vbxware: 3x3 Sobel edge magnitude of an aRGB image on the MXP
 * (vbw_sobel_argb32_3x3).
 *
 * Vector method: the image is processed in vertical strips as wide as the scratchpad allows
 * (VBW_SOBEL_BYTES_PER_COLUMN bytes per column; one strip of whole rows when the image fits),
 * neighbouring strips overlapping by 2 columns so that each interior column is computed by
 * exactly one strip. Down a strip, input rows stream through a 2-slot rotating prefetcher
 * (vbw_buffer.h): the DMA of row y + 3 is queued before the vector work on row y + 2. Per row
 * the vector engine computes
 *   luma      (10 instructions): the blue, green and red bytes extracted by VAND 0xFF of the
 *             pixel words read at byte offsets 0, 1 and 2, weighted 25/129/66, + 128, >> 8;
 *   rowsum    (2): the horizontal [1 2 1] filter, as (l[x] + l[x+1]) + (l[x+1] + l[x+2]);
 * and, with the three newest rows y, y + 1, y + 2, output row y + 1:
 *   gx        (4): colsum = luma[y] + 2 luma[y+1] + luma[y+2], then |colsum[x] - colsum[x+2]|;
 *   gy        (1): |rowsum[y] - rowsum[y+2]|;
 *   edge      (5): (gx + gy) >> renorm, clamped to 255 (a VSUB from 255 leaves the borrow in
 *             the flag, VCMV_LTZ tests it), times 0x00010101 into the pixel words.
 * The row's interior pixels go out with one DMA. The three luma and three rowsum rows rotate
 * (row r in slot r % 3); the output row's first bytes double as scratch for the column sums
 * and the clamp test, since they are dead by the time the final VMULLO writes the row.
 * Border rows are a zeroed output row DMA'd out; the border columns are one zero word DMA'd
 * down each column by a 2-D DMA with scratchpad stride 0 (which the API splits into one
 * 4-byte DMA per row). The routine ends with vbx_sync(), as the SDK's does: its callers
 * compare the output right after it.
 *
 * The injected-bug switch BUG_NO_FINAL_SYNC (apps/bugs/vbw_mtx_sobel_no_final_sync.c, which
 * compiles its own copy of this file) leaves out that final vbx_sync().
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_buffer.h"
#include "vbw_mtx_sobel.h"

#define LUMA_ROUND 128
#define LUMA_SHIFT 8
#define EDGE_MAX 255
#define GREY_WORD 0x00010101u /* edge into blue, green and red; alpha 0 */

/* The scratchpad buffers of one strip, w pixels wide. */
typedef struct {
    int w;
    vbw_prefetch_t rows;      /* the strip's input rows, one per slot */
    vbx_uhalf_t *luma[3];     /* luma of row r in luma[r % 3] */
    vbx_uhalf_t *rowsum[3];   /* its [1 2 1] horizontal filter in rowsum[r % 3] */
    vbx_uword_t *out;         /* one output row; scratch before its VMULLO */
} sobel_strip_t;

static int ring(int row)
{
    return row % 3;
}

static int strip_alloc(sobel_strip_t *s, const uint32_t *input, int w, int height, int pitch)
{
    s->w = w;
    int status = vbw_prefetch_init(&s->rows, 2, w * (int)sizeof(vbx_uword_t), input,
                                   pitch * (int)sizeof(uint32_t), height);
    if (status != VBW_SUCCESS)
        return status;
    for (int i = 0; i < 3; i++) {
        s->luma[i] = vbx_sp_malloc(w * sizeof(vbx_uhalf_t));
        s->rowsum[i] = vbx_sp_malloc(w * sizeof(vbx_uhalf_t));
        if (s->luma[i] == NULL || s->rowsum[i] == NULL)
            return VBW_ERROR_SP_ALLOC_FAILED;
    }
    s->out = vbx_sp_malloc(w * sizeof(vbx_uword_t));
    return s->out == NULL ? VBW_ERROR_SP_ALLOC_FAILED : VBW_SUCCESS;
}

/* luma = (25 b + 129 g + 66 r + 128) >> 8 of w pixels; tmp (w halves) is clobbered. A word
 * read at byte offset k has colour byte k in its low byte, so VAND 0xFF extracts it (the reads
 * at offsets 1 and 2 run 1 and 2 bytes past the row; those bytes are masked off). */
static void luma_row(vbx_uhalf_t *luma, vbx_uhalf_t *tmp, const vbx_uword_t *pixels, int w)
{
    const char *bytes = (const char *)pixels;

    vbx_set_vl(w);
    vbx(SVHWU, VAND, luma, 0xFF, bytes + 0); /* blue */
    vbx(SVHU, VMUL, luma, 25, luma);
    vbx(SVHWU, VAND, tmp, 0xFF, bytes + 1); /* green */
    vbx(SVHU, VMUL, tmp, 129, tmp);
    vbx(VVHU, VADD, luma, luma, tmp);
    vbx(SVHWU, VAND, tmp, 0xFF, bytes + 2); /* red */
    vbx(SVHU, VMUL, tmp, 66, tmp);
    vbx(VVHU, VADD, luma, luma, tmp);
    vbx(SVHU, VADD, luma, LUMA_ROUND, luma);
    vbx(VSHU, VSHR, luma, luma, LUMA_SHIFT);
}

/* Takes the strip's next input row (row `row`) from the prefetcher; its luma into its ring
 * slot, using the row's rowsum slot (dead until row_filter fills it) as scratch. */
static void load_row(sobel_strip_t *s, int row)
{
    const vbx_uword_t *pixels = vbw_prefetch_take(&s->rows);
    luma_row(s->luma[ring(row)], s->rowsum[ring(row)], pixels, s->w);
}

/* rowsum[x] = l[x] + 2 l[x+1] + l[x+2], x < w - 2. Both passes work in place from low to
 * high addresses with the second operand one element higher, which is safe. */
static void row_filter(vbx_uhalf_t *rowsum, const vbx_uhalf_t *luma, int w)
{
    vbx_set_vl(w - 1);
    vbx(VVHU, VADD, rowsum, luma, luma + 1);
    vbx_set_vl(w - 2);
    vbx(VVHU, VADD, rowsum, rowsum, rowsum + 1);
}

/* gx[x] = |colsum[x] - colsum[x+2]|, x < w - 2, colsum = top + 2 mid + bottom (in gx). */
static void column_gradient(vbx_uhalf_t *gx, const vbx_uhalf_t *top, const vbx_uhalf_t *mid,
                            const vbx_uhalf_t *bottom, int w)
{
    vbx_set_vl(w);
    vbx(VSHU, VSHL, gx, mid, 1);
    vbx(VVHU, VADD, gx, gx, top);
    vbx(VVHU, VADD, gx, gx, bottom);
    vbx_set_vl(w - 2);
    vbx(VVH, VABSDIFF, gx, gx, gx + 2);
}

/* out[1 + x] = grey pixel of min(255, (gx[x] + |top[x] - bottom[x]|) >> renorm), x < w - 2.
 * top (the rowsum of the strip's oldest row, dead afterwards) receives the gradient; gx is
 * reused for the clamp test once it has been added in. */
static void edge_row(vbx_uword_t *out, vbx_uhalf_t *top, const vbx_uhalf_t *bottom, vbx_uhalf_t *gx,
                     int w, int renorm)
{
    vbx_uhalf_t *grad = top;

    vbx_set_vl(w - 2);
    vbx(VVH, VABSDIFF, grad, top, bottom); /* gy */
    vbx(VVHU, VADD, grad, grad, gx);
    vbx(VSHU, VSHR, grad, grad, renorm);
    vbx(SVHU, VSUB, gx, EDGE_MAX, grad);       /* flag = borrow: grad > 255 */
    vbx(SVHU, VCMV_LTZ, grad, EDGE_MAX, gx);
    vbx(SVWWHU, VMULLO, out + 1, GREY_WORD, grad);
}

/* A zeroed output row of w pixels, DMA'd out to dst. */
static void zero_row(uint32_t *dst, vbx_uword_t *out, int w)
{
    vbx_set_vl(w);
    vbx(SVWU, VMOV, out, 0, 0);
    vbx_dma_to_host(dst, out, w * sizeof(vbx_uword_t));
}

/* Output columns 1 .. w - 2 and the zero border rows of the strip of width w at input/output
 * (pointers to the strip's first column). */
static int sobel_strip(uint32_t *output, const uint32_t *input, int w, int height, int pitch, int renorm)
{
    sobel_strip_t s;

    vbx_sp_push();
    int status = strip_alloc(&s, input, w, height, pitch);
    if (status != VBW_SUCCESS) {
        vbx_sp_pop();
        return status;
    }

    vbw_prefetch_fetch(&s.rows); /* row 0 */
    vbw_prefetch_fetch(&s.rows); /* row 1 */
    load_row(&s, 0);
    row_filter(s.rowsum[0], s.luma[0], w);
    vbw_prefetch_fetch(&s.rows); /* row 2, into row 0's slot */
    load_row(&s, 1);
    row_filter(s.rowsum[1], s.luma[1], w);
    zero_row(output, s.out, w);

    for (int y = 0; y + 2 < height; y++) {
        vbx_uhalf_t *gx = (vbx_uhalf_t *)s.out;
        vbw_prefetch_fetch(&s.rows); /* row y + 3; nothing past the last row */
        load_row(&s, y + 2);
        column_gradient(gx, s.luma[ring(y)], s.luma[ring(y + 1)], s.luma[ring(y + 2)], w);
        row_filter(s.rowsum[ring(y + 2)], s.luma[ring(y + 2)], w);
        edge_row(s.out, s.rowsum[ring(y)], s.rowsum[ring(y + 2)], gx, w, renorm);
        vbx_dma_to_host(output + (y + 1) * pitch + 1, s.out + 1, (w - 2) * sizeof(vbx_uword_t));
    }
    zero_row(output + (height - 1) * pitch, s.out, w);

    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* Columns 0 and width - 1 of every row: one zero word, DMA'd to each row. */
static int zero_border_columns(uint32_t *output, int width, int height, int pitch)
{
    vbx_sp_push();
    vbx_uword_t *zero = vbx_sp_malloc(sizeof(vbx_uword_t));
    if (zero == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_set_vl(1);
    vbx(SVW, VMOV, zero, 0, 0);
    const int row_bytes = pitch * sizeof(uint32_t);
    vbx_dma_to_host_2D(output, zero, sizeof(vbx_uword_t), height, row_bytes, 0);
    vbx_dma_to_host_2D(output + width - 1, zero, sizeof(vbx_uword_t), height, row_bytes, 0);
    vbx_sp_pop();
    return VBW_SUCCESS;
}

int vbw_sobel_argb32_3x3(unsigned *output, unsigned *input, const short image_width,
                         const short image_height, const short image_pitch, const short renorm)
{
    /* unsigned and uint32_t (unsigned long here) are the same 32 bits. */
    uint32_t *out = (uint32_t *)output;
    const uint32_t *in = (const uint32_t *)input;
    const int width = image_width, height = image_height, pitch = image_pitch;

    assert(width >= 3 && height >= 3);

    int strip_w = vbx_sp_getfree() / VBW_SOBEL_BYTES_PER_COLUMN;
    if (strip_w > width)
        strip_w = width; /* whole rows */
    if (strip_w < 3)
        return VBW_ERROR_SP_ALLOC_FAILED;

    /* Strips overlap by 2 columns: each computes the columns strictly inside it. */
    for (int x0 = 0;; x0 += strip_w - 2) {
        int w = width - x0 < strip_w ? width - x0 : strip_w;
        int status = sobel_strip(out + x0, in + x0, w, height, pitch, renorm);
        if (status != VBW_SUCCESS)
            return status;
        if (x0 + w >= width)
            break;
    }
    int status = zero_border_columns(out, width, height, pitch);
#ifndef BUG_NO_FINAL_SYNC
    vbx_sync();
#endif
    return status;
}

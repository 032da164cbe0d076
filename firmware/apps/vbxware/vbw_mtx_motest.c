/*
 * vbw_mtx_motest.c - vbxware: block-matching motion estimation on the MXP. (The scalar
 * reference, vbw_mtx_motest_scalar_byte, belongs to the SDK's scalar library: here it is in
 * the benchmark program, apps/vbw_mtx_motest.c.)
 *
 * Vector method: the block rows and the search-window rows are DMA'd in one row at a time;
 * a 2-D VMOV packs the block into block_width x block_height contiguous pixels. Then, per
 * horizontal offset k, a 2-D VMOV cuts the block_width-wide column strip at k out of the
 * window, so that block_height consecutive strip rows are contiguous and line up with the
 * packed block; one accumulate 2-D VABSDIFF (a row per vertical offset l, strip advanced by
 * one row per row, block reused) sums |block - strip| into the 32-bit result for (l, k).
 * One DMA-out returns the whole result array.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_motest.h"

int vbw_mtx_motest_byte_setup(vbw_motest_t *m)
{
    const int window_w = m->block_width + m->search_width;
    const int window_h = m->block_height + m->search_height;

    m->v_block = vbx_sp_malloc(m->block_height * window_w * sizeof(vbx_ubyte_t));
    m->v_img = vbx_sp_malloc(window_h * window_w * sizeof(vbx_ubyte_t));
    m->v_result = vbx_sp_malloc(m->search_height * m->search_width * sizeof(vbx_uword_t));
    m->v_img_sub = vbx_sp_malloc(window_h * m->block_width * sizeof(vbx_ubyte_t));
    m->v_absdiff = vbx_sp_malloc(m->block_height * m->block_width * sizeof(vbx_ubyte_t));

    if (!m->v_block || !m->v_img || !m->v_result || !m->v_img_sub || !m->v_absdiff)
        return VBW_ERROR_SP_ALLOC_FAILED;
    return VBW_SUCCESS;
}

int vbw_mtx_motest_byte(output_type *result, input_type *x, input_type *y, vbw_motest_t *m)
{
    const int pitch = m->image_width;
    const int bw = m->block_width, bh = m->block_height;
    const int sw = m->search_width, sh = m->search_height;
    const int window_w = bw + sw;
    const int window_h = bh + sh;
    int j;

    /* The block: bh rows of the window width at x's origin. */
    for (j = 0; j < bh; j++)
        vbx_dma_to_vector(m->v_block + j * window_w, x + j * pitch, window_w * sizeof(input_type));
    /* The search window of y. */
    for (j = 0; j < window_h; j++)
        vbx_dma_to_vector(m->v_img + j * window_w, y + j * pitch, window_w * sizeof(input_type));

    /* Pack the block's bw left columns in place (rows move down only: safe overlap). */
    vbx_set_vl(bw, bh);
    vbx_set_2D(bw * sizeof(vbx_ubyte_t), window_w * sizeof(vbx_ubyte_t), 0);
    vbx(VVB, VMOV, m->v_block, m->v_block, 0);

    for (j = 0; j < sw; j++) {
        /* Column strip at horizontal offset j: window_h rows of bw pixels, contiguous. */
        vbx_set_vl(bw, window_h);
        vbx_set_2D(bw * sizeof(vbx_ubyte_t), window_w * sizeof(vbx_ubyte_t), 0);
        vbx(VVBU, VMOV, m->v_img_sub, m->v_img + j, 0);

        /* Row l: SAD of the packed block against strip rows l .. l + bh - 1. */
        vbx_set_vl(bw * bh, sh);
        vbx_set_2D(sw * sizeof(vbx_uword_t), 0, bw * sizeof(vbx_ubyte_t));
        vbx_acc(VVWBU, VABSDIFF, m->v_result + j, m->v_block, m->v_img_sub);
    }

    vbx_dma_to_host(result, m->v_result, sh * sw * sizeof(output_type));
    return VBW_SUCCESS;
}

/*
 * vbw_mtx_xp.c - vbxware: byte matrix transpose on the MXP.
 *
 * In the scratchpad a transpose is one 3-D VMOV with a vector length of 1: the rows of the
 * instruction walk down an output row (destination step = the output row length, source
 * step = 1 element), its matrices walk down the output columns (destination step 1, source
 * step = the input row length). For matrices in external memory (vbw_mtx_xp_ext_byte) the
 * work is sized by the free scratchpad, which must hold an input and an output buffer:
 *   - fewer than 16 elements: not worth the MXP; the CPU transposes after a sync;
 *   - one row or one column: the transpose is a copy, a DMA round trip;
 *   - the whole matrix fits: DMA in, transpose, DMA out;
 *   - otherwise tiles: whole columns if at least one column fits, else whole rows, else
 *     power-of-two squares; per tile a 2-D DMA in, a transpose, a 2-D DMA out. The MXP's
 *     interlocks order each tile's DMA-in after the previous transpose's reads of the input
 *     buffer, and its transpose after the previous DMA-out of the output buffer.
 * The vector paths end with vbx_sync(), as the SDK routine's do (its callers sync again).
 * (The SDK's merge-network tile transpose needs 8 or more lanes; it is not ported.)
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_mtx_xp_no_routine_sync.c, which
 * compiles its own copy of this file) leaves out that final vbx_sync().
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_xp.h"

#define XP_MIN_VECTOR_ELEMENTS 16

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int vbw_mtx_xp_byte(vbx_byte_t *v_out, vbx_byte_t *v_in, const int rows, const int cols)
{
    vbx_set_vl(1, cols, rows);
    vbx_set_2D(rows * sizeof(vbx_byte_t), sizeof(vbx_byte_t), sizeof(vbx_byte_t));
    vbx_set_3D(sizeof(vbx_byte_t), cols * sizeof(vbx_byte_t), cols * sizeof(vbx_byte_t));
    vbx(VVB, VMOV, v_out, v_in, 0);
    return VBW_SUCCESS;
}

/* The CPU transpose of a tiny matrix, once the MXP is idle. */
static int xp_on_cpu(int8_t *out, const int8_t *in, int rows, int cols)
{
    vbx_sync();
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[j * rows + i] = in[i * cols + j];
    return VBW_SUCCESS;
}

/* A single row or column is its own transpose: a DMA round trip of its n bytes. */
static int xp_vector(int8_t *out, const int8_t *in, int n)
{
    vbx_sp_push();
    vbx_byte_t *v = vbx_sp_malloc(n * sizeof(vbx_byte_t));
    if (v == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_dma_to_vector(v, in, n * sizeof(int8_t));
    vbx_dma_to_host(out, v, n * sizeof(int8_t));
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* The whole matrix in one pass. */
static int xp_whole(int8_t *out, const int8_t *in, int rows, int cols)
{
    const int n = rows * cols;

    vbx_sp_push();
    vbx_byte_t *v_in = vbx_sp_malloc(n * sizeof(vbx_byte_t));
    vbx_byte_t *v_out = vbx_sp_malloc(n * sizeof(vbx_byte_t));
    if (v_in == NULL || v_out == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_dma_to_vector(v_in, in, n * sizeof(int8_t));
    vbw_mtx_xp_byte(v_out, v_in, rows, cols);
    vbx_dma_to_host(out, v_out, n * sizeof(int8_t));
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* Tile shape for a rows x cols matrix whose tiles may hold max_elements elements. */
static void xp_tile_shape(int rows, int cols, int max_elements, int *tile_rows, int *tile_cols)
{
    if (rows <= max_elements) { /* whole columns */
        *tile_rows = rows;
        *tile_cols = min_int(cols, max_elements / rows);
    } else if (cols <= max_elements) { /* whole rows */
        *tile_rows = max_elements / cols;
        *tile_cols = cols;
    } else { /* the largest power-of-two square */
        int side = 1;
        while (4 * side * side <= max_elements)
            side *= 2;
        *tile_rows = side;
        *tile_cols = side;
    }
}

/* One tile: rows [r0, r0 + th) x columns [c0, c0 + tw) of in, to out's rows [c0, c0 + tw) x
 * columns [r0, r0 + th). */
static void xp_tile(int8_t *out, const int8_t *in, int rows, int cols, int r0, int c0, int th, int tw,
                    vbx_byte_t *v_in, vbx_byte_t *v_out)
{
    vbx_dma_to_vector_2D(v_in, in + r0 * cols + c0, tw * sizeof(int8_t), th, tw * sizeof(vbx_byte_t),
                         cols * sizeof(int8_t));
    vbw_mtx_xp_byte(v_out, v_in, th, tw);
    vbx_dma_to_host_2D(out + c0 * rows + r0, v_out, th * sizeof(int8_t), tw, rows * sizeof(int8_t),
                       th * sizeof(vbx_byte_t));
}

static int xp_tiled(int8_t *out, const int8_t *in, int rows, int cols, int max_elements)
{
    int tile_rows, tile_cols;
    xp_tile_shape(rows, cols, max_elements, &tile_rows, &tile_cols);

    vbx_sp_push();
    vbx_byte_t *v_in = vbx_sp_malloc(tile_rows * tile_cols * sizeof(vbx_byte_t));
    vbx_byte_t *v_out = vbx_sp_malloc(tile_rows * tile_cols * sizeof(vbx_byte_t));
    if (v_in == NULL || v_out == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    for (int r0 = 0; r0 < rows; r0 += tile_rows) {
        for (int c0 = 0; c0 < cols; c0 += tile_cols) {
            int th = min_int(tile_rows, rows - r0), tw = min_int(tile_cols, cols - c0);
            xp_tile(out, in, rows, cols, r0, c0, th, tw, v_in, v_out);
        }
    }
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* The transpose on the MXP, by the path the shape and the free scratchpad call for. */
static int xp_on_mxp(int8_t *out, int8_t *in, const int rows, const int cols)
{
    const int n = rows * cols;
    if (rows == 1 || cols == 1)
        return xp_vector(out, in, n);

    /* Elements per buffer when the free scratchpad holds an input and an output buffer. */
    const int align = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
    const int max_elements = VBX_PAD_DN(vbx_sp_getfree() / 2, align) / (int)sizeof(vbx_byte_t);
    if (n <= max_elements)
        return xp_whole(out, in, rows, cols);
    return xp_tiled(out, in, rows, cols, max_elements);
}

int vbw_mtx_xp_ext_byte(int8_t *out, int8_t *in, const int rows, const int cols)
{
    if (rows * cols < XP_MIN_VECTOR_ELEMENTS)
        return xp_on_cpu(out, in, rows, cols);
    int status = xp_on_mxp(out, in, rows, cols);
#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    return status;
}

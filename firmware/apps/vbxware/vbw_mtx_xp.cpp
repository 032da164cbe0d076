/*
 * vbw_mtx_xp.cpp - vbxware: matrix transpose on the MXP, for the six element types (C++
 * templates, as the SDK's vbw_mtx_xp and vbw_mtx_xp_ext; written with the vbxx layer).
 *
 * In the scratchpad a transpose is one 3-D VMOV with a vector length of 1: the rows of the
 * instruction walk down an output row (destination step = the output row length, source
 * step = 1 element), its matrices walk down the output columns (destination step 1, source
 * step = the input row length). The move is a VV VMOV whose B word is 0 (vbxx sends 0 as the
 * B word of every VMOV), the command the C port issued as vbx(VV<T>, VMOV, d, a, 0); the SDK's
 * two-operand vbxx(VMOV, d, a) would be the VE form of the same move.
 *
 * For matrices in external memory (vbw_mtx_xp_ext_<type>) the work is sized by the free
 * scratchpad, which must hold an input and an output buffer:
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
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_mtx_xp_no_routine_sync.cpp, which
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

template <typename Elem> static int vbw_mtx_xp(Elem *v_out, Elem *v_in, const int rows, const int cols)
{
    vbx_set_vl(1, cols, rows);
    vbx_set_2D(rows * sizeof(Elem), sizeof(Elem), sizeof(Elem));
    vbx_set_3D(sizeof(Elem), cols * sizeof(Elem), cols * sizeof(Elem));
    vbxx(VMOV, v_out, v_in, v_in); /* VV move, B word 0 */
    return VBW_SUCCESS;
}

/* The CPU transpose of a tiny matrix, once the MXP is idle. */
template <typename Elem> static int xp_on_cpu(Elem *out, const Elem *in, int rows, int cols)
{
    vbx_sync();
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[j * rows + i] = in[i * cols + j];
    return VBW_SUCCESS;
}

/*
 * The whole matrix in one pass: DMA in, transpose, DMA out. A single row or column is its own
 * transpose: a DMA round trip of its n elements through one buffer. (One function for both:
 * their DMA-outs are one line of code, so race reports name them as one site, as they did for
 * the C port, whose binary had the two merged into one instruction.)
 */
template <typename Elem> static int xp_one_pass(Elem *out, const Elem *in, int rows, int cols)
{
    const int n = rows * cols;
    const bool copy = rows == 1 || cols == 1;

    vbx_sp_push();
    Elem *v_in = (Elem *)vbx_sp_malloc(n * sizeof(Elem));
    Elem *v_out = copy ? v_in : (Elem *)vbx_sp_malloc(n * sizeof(Elem));
    if (v_in == NULL || v_out == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_dma_to_vector(v_in, in, n * sizeof(Elem));
    if (!copy)
        vbw_mtx_xp(v_out, v_in, rows, cols);
    vbx_dma_to_host(out, v_out, n * sizeof(Elem));
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
template <typename Elem>
static void xp_tile(Elem *out, const Elem *in, int rows, int cols, int r0, int c0, int th, int tw,
                    Elem *v_in, Elem *v_out)
{
    vbx_dma_to_vector_2D(v_in, in + r0 * cols + c0, tw * sizeof(Elem), th, tw * sizeof(Elem),
                         cols * sizeof(Elem));
    vbw_mtx_xp(v_out, v_in, th, tw);
    vbx_dma_to_host_2D(out + c0 * rows + r0, v_out, th * sizeof(Elem), tw, rows * sizeof(Elem),
                       th * sizeof(Elem));
}

template <typename Elem>
static int xp_tiled(Elem *out, const Elem *in, int rows, int cols, int max_elements)
{
    int tile_rows, tile_cols;
    xp_tile_shape(rows, cols, max_elements, &tile_rows, &tile_cols);

    vbx_sp_push();
    Elem *v_in = (Elem *)vbx_sp_malloc(tile_rows * tile_cols * sizeof(Elem));
    Elem *v_out = (Elem *)vbx_sp_malloc(tile_rows * tile_cols * sizeof(Elem));
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
template <typename Elem> static int xp_on_mxp(Elem *out, Elem *in, const int rows, const int cols)
{
    if (rows == 1 || cols == 1)
        return xp_one_pass(out, in, rows, cols);

    /* Elements per buffer when the free scratchpad holds an input and an output buffer. */
    const int align = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
    const int max_elements = VBX_PAD_DN(vbx_sp_getfree() / 2, align) / (int)sizeof(Elem);
    if (rows * cols <= max_elements)
        return xp_one_pass(out, in, rows, cols);
    return xp_tiled(out, in, rows, cols, max_elements);
}

template <typename Elem> static int vbw_mtx_xp_ext(Elem *out, Elem *in, const int rows, const int cols)
{
    if (rows * cols < XP_MIN_VECTOR_ELEMENTS)
        return xp_on_cpu(out, in, rows, cols);
    int status = xp_on_mxp(out, in, rows, cols);
#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    return status;
}

/* ---- the extern "C" functions: in the scratchpad, then in external memory ---------------- */

/* The C entry points, one per element type (vbx_types.h). */
#define VBW_MTX_XP_C_(suffix, Elem_) \
    extern "C" int vbw_mtx_xp_##suffix(Elem_ *v_out, Elem_ *v_in, const int rows, const int cols) \
    { \
        return vbw_mtx_xp(v_out, v_in, rows, cols); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_MTX_XP_C_)
#undef VBW_MTX_XP_C_

/* The C entry points, one per element type (vbx_types.h). */
#define VBW_MTX_XP_EXT_C_(suffix, Elem_) \
    extern "C" int vbw_mtx_xp_ext_##suffix(Elem_ *out, Elem_ *in, const int rows, const int cols) \
    { \
        return vbw_mtx_xp_ext<Elem_>(out, in, rows, cols); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_MTX_XP_EXT_C_)
#undef VBW_MTX_XP_EXT_C_

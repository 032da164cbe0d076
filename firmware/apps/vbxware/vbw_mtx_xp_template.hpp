/*
 * vbw_mtx_xp_template.hpp - vbxware: the C++ templates of the matrix transpose (as the SDK's
 * vbw_mtx_xp_template.hpp, which vbw_mtx_xp.h includes in C++): vbw_mtx_xp<T> in the
 * scratchpad and vbw_mtx_xp_ext<T> in external memory, written with the vbxx layer.
 * vbw_mtx_xp.cpp instantiates them for the six element types behind the extern "C" functions;
 * the method is described there. Everything here is a template or static inline.
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_mtx_xp_no_routine_sync.cpp, which
 * compiles its own copy of vbw_mtx_xp.cpp, hence of this header) leaves out the final
 * vbx_sync() of vbw_mtx_xp_ext.
 */
#ifndef VBW_MTX_XP_TEMPLATE_HPP
#define VBW_MTX_XP_TEMPLATE_HPP

#include "vbx.h"
#include "vbw_exit_codes.h"

#define XP_MIN_VECTOR_ELEMENTS 16

static inline int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* The transpose in the scratchpad (vbw_mtx_xp_<type>). */
template <typename Elem> int vbw_mtx_xp(Elem *v_out, Elem *v_in, const int rows, const int cols)
{
    vbx_set_vl(1, cols, rows);
    vbx_set_2D(rows * sizeof(Elem), sizeof(Elem), sizeof(Elem));
    vbx_set_3D(sizeof(Elem), cols * sizeof(Elem), cols * sizeof(Elem));
    vbxx(VMOV, v_out, v_in); /* VE move */
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
static inline void xp_tile_shape(int rows, int cols, int max_elements, int *tile_rows,
                                 int *tile_cols)
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

/* The transpose in external memory (vbw_mtx_xp_ext_<type>). */
template <typename Elem> int vbw_mtx_xp_ext(Elem *out, Elem *in, const int rows, const int cols)
{
    if (rows * cols < XP_MIN_VECTOR_ELEMENTS)
        return xp_on_cpu(out, in, rows, cols);
    int status = xp_on_mxp(out, in, rows, cols);
#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    return status;
}

#endif

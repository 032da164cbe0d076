/*
 * vbw_mtx_xp.h - vbxware: matrix transpose (C port of the byte instances of the SDK's
 * transpose templates, vbw_mtx_xp_ext_byte and vbw_mtx_xp_byte; mxp-spec.md section 7.2).
 */
#ifndef VBW_MTX_XP_H
#define VBW_MTX_XP_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * v_out[j * rows + i] = v_in[i * cols + j] for i < rows, j < cols: the transpose of a
 * rows x cols byte matrix in the scratchpad into a separate cols x rows one (one 3-D VMOV, an
 * element per row). Queues the work without waiting for it; leaves VL, 2D and 3D changed.
 * Returns VBW_SUCCESS.
 */
int vbw_mtx_xp_byte(vbx_byte_t *v_out, vbx_byte_t *v_in, const int rows, const int cols);

/*
 * The same for matrices in external memory (out and in must not overlap; pitch = width).
 * Fewer than 16 elements: waits for the MXP (vbx_sync) and transposes on the CPU. A single
 * row or column: a DMA round trip through the scratchpad. Otherwise the matrix (or, when two
 * copies of it do not fit in the free scratchpad, each tile of it) is DMA'd in, transposed
 * with vbw_mtx_xp_byte and DMA'd out. Except for the CPU case, returns without waiting:
 * vbx_sync() before reading out. Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED.
 */
int vbw_mtx_xp_ext_byte(int8_t *out, int8_t *in, const int rows, const int cols);

#ifdef __cplusplus
}
#endif

#endif

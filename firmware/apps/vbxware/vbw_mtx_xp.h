/*
 * vbw_mtx_xp.h - vbxware: matrix transpose, for the six element types (the extern "C" wrappers,
 * defined in vbw_mtx_xp.cpp, of the C++ templates vbw_mtx_xp and vbw_mtx_xp_ext, as the SDK's;
 * mxp-spec.md sections 2.9 and 7.2). The benchmark calls the byte ones. In C++ this header
 * also includes the templates (vbw_mtx_xp_template.hpp), as the SDK's does.
 */
#ifndef VBW_MTX_XP_H
#define VBW_MTX_XP_H

#include "vbx.h"

#ifdef __cplusplus
#include "vbw_mtx_xp_template.hpp"
extern "C" {
#endif

/*
 * v_out[j * rows + i] = v_in[i * cols + j] for i < rows, j < cols: the transpose of a
 * rows x cols matrix in the scratchpad into a separate cols x rows one (one 3-D VMOV, an
 * element per row). Queues the work without waiting for it; leaves VL, 2D and 3D changed.
 * Returns VBW_SUCCESS.
 */
int vbw_mtx_xp_byte(vbx_byte_t *v_out, vbx_byte_t *v_in, const int rows, const int cols);
int vbw_mtx_xp_ubyte(vbx_ubyte_t *v_out, vbx_ubyte_t *v_in, const int rows, const int cols);
int vbw_mtx_xp_half(vbx_half_t *v_out, vbx_half_t *v_in, const int rows, const int cols);
int vbw_mtx_xp_uhalf(vbx_uhalf_t *v_out, vbx_uhalf_t *v_in, const int rows, const int cols);
int vbw_mtx_xp_word(vbx_word_t *v_out, vbx_word_t *v_in, const int rows, const int cols);
int vbw_mtx_xp_uword(vbx_uword_t *v_out, vbx_uword_t *v_in, const int rows, const int cols);

/*
 * The same for matrices in external memory (out and in must not overlap; pitch = width).
 * Fewer than 16 elements: waits for the MXP (vbx_sync) and transposes on the CPU. A single
 * row or column: a DMA round trip through the scratchpad. Otherwise the matrix (or, when two
 * copies of it do not fit in the free scratchpad, each tile of it) is DMA'd in, transposed
 * with vbw_mtx_xp_<type> and DMA'd out. Every path returns with the MXP idle (the vector
 * paths end with vbx_sync()): out is complete. Returns VBW_SUCCESS, or
 * VBW_ERROR_SP_ALLOC_FAILED.
 */
int vbw_mtx_xp_ext_byte(int8_t *out, int8_t *in, const int rows, const int cols);
int vbw_mtx_xp_ext_ubyte(uint8_t *out, uint8_t *in, const int rows, const int cols);
int vbw_mtx_xp_ext_half(int16_t *out, int16_t *in, const int rows, const int cols);
int vbw_mtx_xp_ext_uhalf(uint16_t *out, uint16_t *in, const int rows, const int cols);
int vbw_mtx_xp_ext_word(int32_t *out, int32_t *in, const int rows, const int cols);
int vbw_mtx_xp_ext_uword(uint32_t *out, uint32_t *in, const int rows, const int cols);

#ifdef __cplusplus
}
#endif

#endif

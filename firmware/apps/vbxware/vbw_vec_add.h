/*
 * vbw_vec_add.h - vbxware: element-wise addition of two scratchpad vectors, for the six
 * element types (the extern "C" wrappers of the C++ template in vbw_vec_add.cpp, as the SDK's
 * vector-add routine; mxp-spec.md sections 2.9 and 7.2). The benchmark calls the byte one.
 */
#ifndef VBW_VEC_ADD_H
#define VBW_VEC_ADD_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * v_out[i] = v_in1[i] + v_in2[i] (wrapping to the element type) for i < vl, for any overlap
 * of the three scratchpad vectors. Queues the work without waiting for it (for vl = 0 there
 * is none). Leaves VL (and for overlapping operands the 2D increments) changed. Returns
 * VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when a temporary vector is needed and the
 * scratchpad has no room for it.
 */
int vbw_vec_add_byte(vbx_byte_t *v_out, vbx_byte_t *v_in1, vbx_byte_t *v_in2, unsigned int vl);
int vbw_vec_add_ubyte(vbx_ubyte_t *v_out, vbx_ubyte_t *v_in1, vbx_ubyte_t *v_in2, unsigned int vl);
int vbw_vec_add_half(vbx_half_t *v_out, vbx_half_t *v_in1, vbx_half_t *v_in2, unsigned int vl);
int vbw_vec_add_uhalf(vbx_uhalf_t *v_out, vbx_uhalf_t *v_in1, vbx_uhalf_t *v_in2, unsigned int vl);
int vbw_vec_add_word(vbx_word_t *v_out, vbx_word_t *v_in1, vbx_word_t *v_in2, unsigned int vl);
int vbw_vec_add_uword(vbx_uword_t *v_out, vbx_uword_t *v_in1, vbx_uword_t *v_in2, unsigned int vl);

#ifdef __cplusplus
}
#endif

#endif

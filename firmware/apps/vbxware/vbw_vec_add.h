/*
 * vbw_vec_add.h - vbxware: element-wise addition of two scratchpad vectors (C port of the
 * byte instance of the SDK's vector-add routine; mxp-spec.md section 7.2).
 */
#ifndef VBW_VEC_ADD_H
#define VBW_VEC_ADD_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * v_out[i] = v_in1[i] + v_in2[i] (8-bit wrap-around) for i < n, for any overlap of the three
 * scratchpad vectors. Queues the work without waiting for it. Leaves VL (and for overlapping
 * operands the 2D increments) changed. Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when
 * a temporary vector is needed and the scratchpad has no room for it.
 */
int vbw_vec_add_byte(vbx_byte_t *v_out, vbx_byte_t *v_in1, vbx_byte_t *v_in2, const int n);

#ifdef __cplusplus
}
#endif

#endif

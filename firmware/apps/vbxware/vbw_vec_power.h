/*
 * vbw_vec_power.h - vbxware: element-wise integer power of two scratchpad vectors (C port of
 * the word instance of the SDK's vector-power routine; mxp-spec.md section 7.2).
 */
#ifndef VBW_VEC_POWER_H
#define VBW_VEC_POWER_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * v_out[i] = v_base[i] ^ v_exp[i] (the product wraps to 32 bits) for i < n; 0 where
 * v_exp[i] < 0. v_out must not overlap the sources. Square-and-multiply over the exponent
 * bits; after every fourth bit the routine syncs and reads from the scratchpad how many
 * exponents still have bits left, and stops when none has. The rest is queued without
 * waiting. Takes four n-word temporaries between vbx_sp_push and vbx_sp_pop and leaves VL
 * set to n. Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when they do not fit.
 */
int vbw_vec_power_word(vbx_word_t *v_out, vbx_word_t *v_base, vbx_word_t *v_exp, const int n);

#ifdef __cplusplus
}
#endif

#endif

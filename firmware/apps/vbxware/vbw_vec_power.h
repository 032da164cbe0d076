/*
 * vbw_vec_power.h - vbxware: element-wise integer power of two scratchpad vectors, for the six
 * element types (the extern "C" wrappers of the C++ template in vbw_vec_power.cpp, as the SDK's
 * vector-power routine; mxp-spec.md sections 2.9 and 7.2). The benchmark calls the word one.
 */
#ifndef VBW_VEC_POWER_H
#define VBW_VEC_POWER_H

#include "vbx.h"

#ifdef __cplusplus
/* The template behind the C functions (defined in vbw_vec_power.cpp, as the SDK declares it). */
template <typename Elem>
int vbw_vec_power(Elem *v_out, Elem *v_base, Elem *v_exp, unsigned int vl);

extern "C" {
#endif

/*
 * v_out[i] = v_base[i] ^ v_exp[i] (the product wraps to the element type) for i < vl; for the
 * signed types 0 where v_exp[i] < 0. v_out must not overlap the sources. Square-and-multiply
 * over the exponent bits; after every fourth bit but the last the routine syncs and reads
 * from the scratchpad how many exponents still have bits left (an arithmetic shift: one with
 * its top bit set always has), and stops when none has. The rest is queued without waiting.
 * Takes four vl-element temporaries between vbx_sp_push and vbx_sp_pop and leaves VL set to
 * vl. Returns VBW_SUCCESS (at once for vl = 0), or VBW_ERROR_SP_ALLOC_FAILED when they do not
 * fit.
 */
int vbw_vec_power_byte(vbx_byte_t *v_out, vbx_byte_t *v_base, vbx_byte_t *v_exp, unsigned int vl);
int vbw_vec_power_ubyte(vbx_ubyte_t *v_out, vbx_ubyte_t *v_base, vbx_ubyte_t *v_exp,
                        unsigned int vl);
int vbw_vec_power_half(vbx_half_t *v_out, vbx_half_t *v_base, vbx_half_t *v_exp, unsigned int vl);
int vbw_vec_power_uhalf(vbx_uhalf_t *v_out, vbx_uhalf_t *v_base, vbx_uhalf_t *v_exp,
                        unsigned int vl);
int vbw_vec_power_word(vbx_word_t *v_out, vbx_word_t *v_base, vbx_word_t *v_exp, unsigned int vl);
int vbw_vec_power_uword(vbx_uword_t *v_out, vbx_uword_t *v_base, vbx_uword_t *v_exp,
                        unsigned int vl);

#ifdef __cplusplus
}
#endif

#endif

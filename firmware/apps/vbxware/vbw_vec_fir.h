/*
 * vbw_vec_fir.h - vbxware: 1-D FIR filter of a host sample array, for the six element types
 * (the extern "C" wrappers of the C++ template in vbw_vec_fir.cpp, as the SDK's
 * vbw_vec_fir_ext; mxp-spec.md sections 2.9 and 7.2).
 */
#ifndef VBW_VEC_FIR_H
#define VBW_VEC_FIR_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * output[j] = saturate_T(sum over i < num_taps of trunc_T(input[j + i] * coeffs[i])) for
 * j < sample_size - num_taps: each product is truncated to the element type T, the products
 * are summed in the MXP's 40-bit accumulator, and the sum is saturated to T (signed types to
 * their minimum/maximum, unsigned ones to all ones). Reads input[0 .. sample_size - 1] and
 * coeffs[0 .. num_taps - 1] by DMA, writes output by DMA, and returns after a vbx_sync().
 * Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when the scratchpad is too small (a chunk,
 * an eighth of the free scratchpad, must hold more than num_taps samples).
 */
int vbw_vec_fir_ext_byte(int8_t *output, int8_t *input, int8_t *coeffs, const int sample_size,
                         const int num_taps);
int vbw_vec_fir_ext_ubyte(uint8_t *output, uint8_t *input, uint8_t *coeffs, const int sample_size,
                          const int num_taps);
int vbw_vec_fir_ext_half(int16_t *output, int16_t *input, int16_t *coeffs, const int sample_size,
                         const int num_taps);
int vbw_vec_fir_ext_uhalf(uint16_t *output, uint16_t *input, uint16_t *coeffs,
                          const int sample_size, const int num_taps);
int vbw_vec_fir_ext_word(int32_t *output, int32_t *input, int32_t *coeffs, const int sample_size,
                         const int num_taps);
int vbw_vec_fir_ext_uword(uint32_t *output, uint32_t *input, uint32_t *coeffs,
                          const int sample_size, const int num_taps);

#ifdef __cplusplus
}
#endif

#endif

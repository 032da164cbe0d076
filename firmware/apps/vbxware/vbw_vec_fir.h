/*
 * vbw_vec_fir.h - vbxware: 1-D FIR filter of a host sample array, for the six element types
 * (the extern "C" wrappers of the C++ templates in vbw_vec_fir.cpp, as the SDK's
 * vbw_vec_fir_ext and vbw_vec_fir_transpose_ext; mxp-spec.md sections 2.9 and 7.2).
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

/*
 * The transpose form, same signature and outputs: output[j] = sum over i < num_taps of
 * input[j + i] * coeffs[i] for j < sample_size - num_taps, every product and partial sum
 * wrapping in the element type (no 40-bit accumulator, no saturation: not the same results as
 * vbw_vec_fir_ext when a sum overflows). Per tap, an SV VMUL of the shifted samples by the
 * scalar coeffs[i], which the CPU reads from the host array (no DMA), and a VV VADD. Reads
 * input[0 .. sample_size - 2] by DMA, in chunks overlapping by num_taps - 1 samples when the
 * scratchpad is too small for the whole sample, writes output by DMA, and returns after a
 * vbx_sync(). Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when num_taps < 1 or when the
 * free scratchpad cannot hold the buffers of one output (num_taps samples, the output and a
 * product, each rounded up to the allocation granule).
 */
int vbw_vec_fir_transpose_ext_byte(int8_t *output, int8_t *input, int8_t *coeffs,
                                   const int sample_size, const int num_taps);
int vbw_vec_fir_transpose_ext_ubyte(uint8_t *output, uint8_t *input, uint8_t *coeffs,
                                    const int sample_size, const int num_taps);
int vbw_vec_fir_transpose_ext_half(int16_t *output, int16_t *input, int16_t *coeffs,
                                   const int sample_size, const int num_taps);
int vbw_vec_fir_transpose_ext_uhalf(uint16_t *output, uint16_t *input, uint16_t *coeffs,
                                    const int sample_size, const int num_taps);
int vbw_vec_fir_transpose_ext_word(int32_t *output, int32_t *input, int32_t *coeffs,
                                   const int sample_size, const int num_taps);
int vbw_vec_fir_transpose_ext_uword(uint32_t *output, uint32_t *input, uint32_t *coeffs,
                                    const int sample_size, const int num_taps);

#ifdef __cplusplus
}
#endif

#endif

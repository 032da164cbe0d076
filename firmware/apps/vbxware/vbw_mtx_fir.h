/*
 * vbw_mtx_fir.h - vbxware: 2-D FIR filter of an image with 32-bit coefficients, for the six
 * element types (the extern "C" wrappers of the C++ template in vbw_mtx_fir.cpp, as the SDK's
 * 2-D FIR routine; mxp-spec.md sections 2.9 and 7.2). The benchmark calls the byte one.
 */
#ifndef VBW_MTX_FIR_H
#define VBW_MTX_FIR_H

#include "vbx.h"

#ifdef __cplusplus
/* The template behind the C functions (defined in vbw_mtx_fir.cpp, as the SDK declares it). */
template <typename Elem>
void vbw_mtx_2Dfir(Elem *output, Elem *input, int32_t *coeffs, const int num_row,
                   const int num_column, const int ntaps_row, const int ntaps_column);

extern "C" {
#endif

/*
 * output[l * num_column + k] = (sum over j < ntaps_row, i < ntaps_column of
 *     input[(l + j) * num_column + k + i] * coeffs[j * ntaps_column + i]) >> 8, truncated to the
 * element type, for l < num_row - ntaps_row and k < num_column - ntaps_column, with 32-bit
 * wrap-around sums (the shift is arithmetic for the signed types, logical for the unsigned
 * ones). Other output elements are not written. input and output are host buffers (DMA'd);
 * coeffs is a host buffer the CPU reads once per vector instruction while it issues them.
 * Returns after a vbx_sync(): output is complete. Returns nothing, as the SDK's routine; when
 * the scratchpad cannot hold ntaps_row input rows and the three row buffers it does nothing.
 */
void vbw_mtx_2Dfir_byte(int8_t *output, int8_t *input, int32_t *coeffs, const int num_row,
                        const int num_column, const int ntaps_row, const int ntaps_column);
void vbw_mtx_2Dfir_ubyte(uint8_t *output, uint8_t *input, int32_t *coeffs, const int num_row,
                         const int num_column, const int ntaps_row, const int ntaps_column);
void vbw_mtx_2Dfir_half(int16_t *output, int16_t *input, int32_t *coeffs, const int num_row,
                        const int num_column, const int ntaps_row, const int ntaps_column);
void vbw_mtx_2Dfir_uhalf(uint16_t *output, uint16_t *input, int32_t *coeffs, const int num_row,
                         const int num_column, const int ntaps_row, const int ntaps_column);
void vbw_mtx_2Dfir_word(int32_t *output, int32_t *input, int32_t *coeffs, const int num_row,
                        const int num_column, const int ntaps_row, const int ntaps_column);
void vbw_mtx_2Dfir_uword(uint32_t *output, uint32_t *input, int32_t *coeffs, const int num_row,
                         const int num_column, const int ntaps_row, const int ntaps_column);

#ifdef __cplusplus
}
#endif

#endif

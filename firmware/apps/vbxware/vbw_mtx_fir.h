/*
 * vbw_mtx_fir.h - vbxware: 2-D FIR filter of a byte image with 32-bit coefficients (C port of
 * the byte instance of the SDK's 2-D FIR routine; mxp-spec.md section 7.2).
 */
#ifndef VBW_MTX_FIR_H
#define VBW_MTX_FIR_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * output[l * num_column + k] = (sum over j < ntaps_row, i < ntaps_column of
 *     input[(l + j) * num_column + k + i] * coeffs[j * ntaps_column + i]) >> 8, truncated to 8 bits,
 * for l < num_row - ntaps_row and k < num_column - ntaps_column, with 32-bit wrap-around sums.
 * Other output bytes are not written. input and output are host buffers (DMA'd); coeffs is a
 * host buffer the CPU reads once per vector instruction while it issues them. Returns after
 * a vbx_sync(): output is complete. Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when the
 * scratchpad cannot hold ntaps_row input rows and the three row buffers.
 */
int vbw_mtx_2Dfir_byte(int8_t *output, int8_t *input, int32_t *coeffs, const int num_row,
                       const int num_column, const int ntaps_row, const int ntaps_column);

#ifdef __cplusplus
}
#endif

#endif

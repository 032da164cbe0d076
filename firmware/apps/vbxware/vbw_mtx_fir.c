/*
 * vbw_mtx_fir.c - vbxware: 2-D FIR filter of a byte image on the MXP.
 *
 * Method: the image streams through a ring of ntaps_row scratchpad rows (v_sample), one
 * DMA-in per output row: once output row l is queued, input row l + ntaps_row goes into the
 * ring slot of row l, the slot row l's taps no longer need (input row r lives in slot
 * r % ntaps_row). An output row is a sum over the taps of whole input rows times a scalar
 * coefficient; the column offset i of a tap is just the row pointer + i. The first tap is one
 * SV VMULLO (word result from the byte row and a word scalar) into v_accum_int, each other tap
 * a VMULLO into v_mult_int and a VADD into v_accum_int; then a VS VSHR by 8 narrows the sums
 * to bytes in v_accum, which is DMA'd out (num_column - ntaps_column bytes). Rows run at full
 * width (VL = num_column): the last columns read past the end of their ring row (the last
 * slot's into v_accum), and those results are never DMA'd out.
 *
 * The CPU reads every coefficient from coeffs, a host buffer (the test's shared, so uncached,
 * copy), right before it issues the multiply that uses it: ntaps_row x ntaps_column loads per
 * output row, as the original does. Ends with vbx_sync() (after releasing the scratchpad).
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_mtx_fir_no_routine_sync.c, which
 * compiles its own copy of this file) leaves out that final vbx_sync().
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_fir.h"

/* The sums are scaled back to the byte range by this right shift. */
#define FIR_SHIFT 8

/*
 * Queues the word sums of output row l into v_accum_int: one multiply per tap, the input row
 * of tap row j being ring slot (l + j) % ntaps_row, and an add for every tap but the first.
 */
static void queue_row_sums(vbx_word_t *v_accum_int, vbx_word_t *v_mult_int, vbx_byte_t *v_sample,
                           const int32_t *coeffs, int l, int num_column, int ntaps_row,
                           int ntaps_column)
{
    for (int j = 0; j < ntaps_row; j++) {
        vbx_byte_t *v_row = v_sample + ((l + j) % ntaps_row) * num_column;
        for (int i = 0; i < ntaps_column; i++) {
            /* A fresh CPU load per instruction (each vbx() is a compiler barrier). The word
             * scalar size (SVWWB) keeps all 32 bits of the coefficient. */
            int32_t coeff = coeffs[j * ntaps_column + i];
            if (j == 0 && i == 0) {
                vbx(SVWWB, VMULLO, v_accum_int, coeff, v_row + i);
            } else {
                vbx(SVWWB, VMULLO, v_mult_int, coeff, v_row + i);
                vbx(VVW, VADD, v_accum_int, v_accum_int, v_mult_int);
            }
        }
    }
}

int vbw_mtx_2Dfir_byte(int8_t *output, int8_t *input, int32_t *coeffs, const int num_row,
                       const int num_column, const int ntaps_row, const int ntaps_column)
{
    const int out_rows = num_row - ntaps_row;
    const int out_columns = num_column - ntaps_column;
    const int row_bytes = num_column * sizeof(vbx_byte_t);

    vbx_sp_push();
    vbx_byte_t *v_sample = vbx_sp_malloc(ntaps_row * row_bytes);
    vbx_byte_t *v_accum = vbx_sp_malloc(num_column * sizeof(vbx_byte_t));
    vbx_word_t *v_accum_int = vbx_sp_malloc(num_column * sizeof(vbx_word_t));
    vbx_word_t *v_mult_int = vbx_sp_malloc(num_column * sizeof(vbx_word_t));
    if (!v_sample || !v_accum || !v_accum_int || !v_mult_int) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    vbx_set_vl(num_column);
    for (int j = 0; j < ntaps_row; j++)
        vbx_dma_to_vector(v_sample + j * num_column, input + j * num_column, row_bytes);

    for (int l = 0; l < out_rows; l++) {
        queue_row_sums(v_accum_int, v_mult_int, v_sample, coeffs, l, num_column, ntaps_row,
                       ntaps_column);
        vbx(VSBW, VSHR, v_accum, v_accum_int, FIR_SHIFT);
        vbx_dma_to_host(output + l * num_column, v_accum, out_columns * sizeof(int8_t));
        /* Row l's slot is free (the DMA waits for the multiplies that read it): fetch the
         * last input row that output row l + 1 needs. */
        if (l + 1 < out_rows)
            vbx_dma_to_vector(v_sample + (l % ntaps_row) * num_column,
                              input + (l + ntaps_row) * num_column, row_bytes);
    }

    vbx_sp_pop();
#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    return VBW_SUCCESS;
}

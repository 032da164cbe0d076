/*
 * vbw_mtx_fir.cpp - vbxware: 2-D FIR filter of an image on the MXP, for the six element types
 * (a C++ template, as the SDK's vbw_mtx_2Dfir; written with the vbxx layer).
 *
 * Method (element type T, word type W = word_sized<T>, vbx_word_t or vbx_uword_t): the image
 * streams through a ring of ntaps_row scratchpad rows (v_sample), one DMA-in per output row:
 * once output row l is queued, input row l + ntaps_row goes into the ring slot of row l, the
 * slot row l's taps no longer need (input row r lives in slot r % ntaps_row). An output row is
 * a sum over the taps of whole input rows times a scalar coefficient; the column offset i of
 * a tap is just the row pointer + i. The first tap is one SV VMULLO (W result from the T row
 * and a 32-bit signed scalar) into v_accum_int, each other tap a VMULLO into v_mult_int and a
 * VADD into v_accum_int; then a VS VSHR by 8 narrows the sums to T in v_accum, which is DMA'd
 * out (num_column - ntaps_column elements). Rows run at full width (VL = num_column): the last
 * columns read past the end of their ring row (the last slot's into v_accum), and those
 * results are never DMA'd out.
 *
 * The CPU reads every coefficient from coeffs, a host buffer (the test's shared, so uncached,
 * copy), right before it issues the multiply that uses it: ntaps_row x ntaps_column loads per
 * output row, as the original does. Ends with vbx_sync() (after releasing the scratchpad).
 * Returns nothing, as the SDK's routine (the template is declared in vbw_mtx_fir.h for C++).
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_mtx_fir_no_routine_sync.cpp, which
 * compiles its own copy of this file) leaves out that final vbx_sync().
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_template.hpp"
#include "vbw_mtx_fir.h"

/* The sums are scaled back to the element range by this right shift. */
#define FIR_SHIFT 8

/*
 * Queues the word sums of output row l into v_accum_int: one multiply per tap, the input row
 * of tap row j being ring slot (l + j) % ntaps_row, and an add for every tap but the first.
 */
template <typename Elem, typename Word>
static void queue_row_sums(Word *v_accum_int, Word *v_mult_int, Elem *v_sample, const int32_t *coeffs,
                           int l, int num_column, int ntaps_row, int ntaps_column)
{
    for (int j = 0; j < ntaps_row; j++) {
        Elem *v_row = v_sample + ((l + j) % ntaps_row) * num_column;
        for (int i = 0; i < ntaps_column; i++) {
            /* A fresh CPU load per instruction (each vbxx() is a compiler barrier). The
             * scalar is an int32_t, so the A field is a signed word and keeps all 32 bits of
             * the coefficient (SVWWBSSS for bytes). */
            int32_t coeff = coeffs[j * ntaps_column + i];
            if (j == 0 && i == 0) {
                vbxx(VMULLO, v_accum_int, coeff, v_row + i);
            } else {
                vbxx(VMULLO, v_mult_int, coeff, v_row + i);
                vbxx(VADD, v_accum_int, v_accum_int, v_mult_int);
            }
        }
    }
}

template <typename Elem>
void vbw_mtx_2Dfir(Elem *output, Elem *input, int32_t *coeffs, const int num_row,
                   const int num_column, const int ntaps_row, const int ntaps_column)
{
    typedef typename word_sized<Elem>::type Word;
    const int out_rows = num_row - ntaps_row;
    const int out_columns = num_column - ntaps_column;
    const int row_bytes = num_column * sizeof(Elem);

    vbx_sp_push();
    Elem *v_sample = (Elem *)vbx_sp_malloc(ntaps_row * row_bytes);
    Elem *v_accum = (Elem *)vbx_sp_malloc(num_column * sizeof(Elem));
    Word *v_accum_int = (Word *)vbx_sp_malloc(num_column * sizeof(Word));
    Word *v_mult_int = (Word *)vbx_sp_malloc(num_column * sizeof(Word));
    if (!v_sample || !v_accum || !v_accum_int || !v_mult_int) {
        vbx_sp_pop(); /* nothing done: output is left as it was */
        return;
    }

    vbx_set_vl(num_column);
    for (int j = 0; j < ntaps_row; j++)
        vbx_dma_to_vector(v_sample + j * num_column, input + j * num_column, row_bytes);

    for (int l = 0; l < out_rows; l++) {
        queue_row_sums(v_accum_int, v_mult_int, v_sample, coeffs, l, num_column, ntaps_row,
                       ntaps_column);
        vbxx(VSHR, v_accum, v_accum_int, FIR_SHIFT); /* VS: SV VMULHI by 2^(32 - 8) */
        vbx_dma_to_host(output + l * num_column, v_accum, out_columns * sizeof(Elem));
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
}

/* The C entry points, one per element type (vbx_types.h), and the template's instances, for
 * C++ callers that see only its declaration in vbw_mtx_fir.h (an implicit instance may be
 * inlined away). */
#define VBW_MTX_2DFIR_C_(suffix, Elem_) \
    template void vbw_mtx_2Dfir<Elem_>(Elem_ *, Elem_ *, int32_t *, const int, const int, const int, const int); \
    extern "C" void vbw_mtx_2Dfir_##suffix(Elem_ *output, Elem_ *input, int32_t *coeffs, const int num_row, const int num_column, const int ntaps_row, const int ntaps_column) \
    { \
        vbw_mtx_2Dfir<Elem_>(output, input, coeffs, num_row, num_column, ntaps_row, ntaps_column); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_MTX_2DFIR_C_)
#undef VBW_MTX_2DFIR_C_

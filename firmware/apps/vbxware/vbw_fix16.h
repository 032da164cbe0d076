/*
 * vbw_fix16.h - vbxware: Q16.16 square root and division of scratchpad vectors in software,
 * with the MXP's integer and fixed-point instructions (C port of the SDK's vbw_fix16 routines;
 * mxp-spec.md section 7.2). The SDK's custom-instruction variants (VCUSTOM0/1) are not ported:
 * the benchmark runs them only outside the vendor simulator, which the paper used.
 */
#ifndef VBW_FIX16_H
#define VBW_FIX16_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * v_out[i] = the Q16.16 square root of |v_in[i]|, negated for negative v_in[i], for i < n:
 * libfixmath's fix16_sqrt, computed by the same digit-by-digit method. v_out may be v_in.
 * Sets VL to n (1 row, 1 matrix) and queues the work without waiting. Takes a ten-vector
 * temporary block between vbx_sp_push and vbx_sp_pop; when it does not fit, does nothing.
 * Returns nothing (as the SDK's).
 */
void vbw_fix16_sqrt(vbx_word_t *v_out, vbx_word_t *v_in, const int n);

/*
 * v_out[i] = v_a[i] / v_b[i] in Q16.16, for i < n: the largest quotient whose rounded
 * fixed-point product with |v_b[i]| does not exceed |v_a[i]|, with the quotient's sign;
 * within 1 of libfixmath's fix16_div for |v_b[i]| >= 1.0 when the quotient fits. v_out may
 * be v_a or v_b. Sets VL to n (1 row, 1 matrix) and queues the work without waiting.
 * Allocates six n-word temporaries and does not release them (as the SDK's routine); when
 * they do not fit, does nothing. Returns nothing (as the SDK's).
 */
void vbw_fix16_div(vbx_word_t *v_out, vbx_word_t *v_a, vbx_word_t *v_b, const int n);

#ifdef __cplusplus
}
#endif

#endif

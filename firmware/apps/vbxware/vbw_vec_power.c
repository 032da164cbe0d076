/*
 * vbw_vec_power.c - vbxware: element-wise integer power on the MXP.
 *
 * Square-and-multiply, one exponent bit per step for all elements at once: aa runs through
 * base^1, base^2, base^4, ...; where the exponent's current bit is 1, out is multiplied by
 * aa; the exponent copy bb is shifted right (logically, so that negative exponents run out
 * of bits too). A vector has no early exit of its own, so after every COUNT_PERIOD steps an
 * accumulated conditional move counts the elements whose bb is still non-zero into one
 * scratchpad word, and the CPU syncs and reads that word: at 0 every exponent is used up.
 * Finally negative exponents give 0.
 *
 * The in-loop vbx_sync() before the CPU reads the count is the only ordering between that
 * scratchpad load and the accumulate that writes the word. The injected-bug variant
 * bugs/vbw_vec_power_no_loop_sync.c defines BUG_NO_LOOP_SYNC, which removes it.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_vec_power.h"

#define EXPONENT_BITS 32
/* Steps between two checks for remaining exponent bits (each check costs a sync). */
#define COUNT_PERIOD 4

/* How many elements of v_bb are non-zero: 1 accumulated for each into v_count[0], which the
 * CPU reads once the accelerator is idle. */
static int count_nonzero(vbx_word_t *v_count, vbx_word_t *v_bb)
{
    vbx_acc(SVW, VCMV_NZ, v_count, 1, v_bb);
#ifndef BUG_NO_LOOP_SYNC
    vbx_sync();
#endif
    return (int)v_count[0];
}

/* One square-and-multiply step: out *= aa where bb's lowest bit is 1; aa squared; bb >>= 1. */
static void power_step(vbx_word_t *v_out, vbx_word_t *v_aa, vbx_word_t *v_bb, vbx_word_t *v_flg,
                       vbx_word_t *v_tmp)
{
    vbx(SVW, VAND, v_flg, 1, v_bb);
    vbx(VVW, VMUL, v_tmp, v_out, v_aa);
    vbx(VVW, VCMV_NZ, v_out, v_tmp, v_flg);
    vbx(VVW, VMUL, v_aa, v_aa, v_aa);
    vbx(VSWU, VSHR, v_bb, v_bb, 1);
}

int vbw_vec_power_word(vbx_word_t *v_out, vbx_word_t *v_base, vbx_word_t *v_exp, const int n)
{
    vbx_sp_push();
    vbx_word_t *v_aa = vbx_sp_malloc(n * sizeof(vbx_word_t));
    vbx_word_t *v_bb = vbx_sp_malloc(n * sizeof(vbx_word_t));
    vbx_word_t *v_flg = vbx_sp_malloc(n * sizeof(vbx_word_t));
    vbx_word_t *v_tmp = vbx_sp_malloc(n * sizeof(vbx_word_t));
    if (!v_aa || !v_bb || !v_flg || !v_tmp) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    vbx_set_vl(n);
    vbx(VVW, VMOV, v_aa, v_base, 0);
    vbx(VVW, VMOV, v_bb, v_exp, 0);
    vbx(SEW, VMOV, v_out, 1, 0);

    for (int i = 0; i < EXPONENT_BITS; i++) {
        power_step(v_out, v_aa, v_bb, v_flg, v_tmp);
        /* v_tmp is free again until the next step's product: it holds the count. */
        if (i % COUNT_PERIOD == COUNT_PERIOD - 1 && count_nonzero(v_tmp, v_bb) == 0)
            break;
    }

    /* A negative exponent gives 0: -exp > 0 (the subtraction's flag corrects exp = INT_MIN). */
    vbx(SVW, VSUB, v_tmp, 0, v_exp);
    vbx(SVW, VCMV_GTZ, v_out, 0, v_tmp);

    vbx_sp_pop();
    return VBW_SUCCESS;
}

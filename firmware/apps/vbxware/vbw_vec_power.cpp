/*
 * vbw_vec_power.cpp - vbxware: element-wise integer power on the MXP, for the six element types
 * (a C++ template, as the SDK's vbw_vec_power; written with the vbxx layer).
 *
 * Square-and-multiply, one exponent bit per step for all elements at once: aa runs through
 * base^1, base^2, base^4, ...; where the exponent's current bit is 1, out is multiplied by
 * aa; the exponent copy bb is shifted right through the signed type of the same width
 * (signed_conv, as the SDK's): an arithmetic shift even for an unsigned type, so an exponent
 * with its top bit set never runs out of bits (step i still uses bit i of the exponent). A
 * vector has no early exit of its own, so after every COUNT_PERIOD steps but the last an
 * accumulated conditional move counts the elements whose bb is still non-zero into one
 * scratchpad element, and the CPU syncs and reads that element: at 0 every exponent is used
 * up. Finally, for a signed type, negative exponents give 0.
 *
 * Moves from a vector are the SDK's two-operand vbxx(VMOV, d, a): VE VMOVs.
 *
 * The in-loop vbx_sync() before the CPU reads the count is the only ordering between that
 * scratchpad load and the accumulate that writes the element. The injected-bug variant
 * bugs/vbw_vec_power_no_loop_sync.cpp defines BUG_NO_LOOP_SYNC, which removes it.
 */
#include "vbw_exit_codes.h"
#include "vbx.h"
#include "vbw_template.hpp"
#include "type_manipulation.hpp"
#include "vbw_vec_power.h"

/* Steps between two checks for remaining exponent bits (each check costs a sync). */
#define COUNT_PERIOD 4

/* How many elements of v_bb are non-zero: 1 accumulated for each into v_count[0], which the
 * CPU reads once the accelerator is idle. */
template <typename Elem> static int count_nonzero(Elem *v_count, Elem *v_bb)
{
    vbxx_acc(VCMV_NZ, v_count, 1, v_bb);
#ifndef BUG_NO_LOOP_SYNC
    vbx_sync();
#endif
    return (int)v_count[0];
}

/* One square-and-multiply step: out *= aa where bb's lowest bit is 1; aa squared; bb >>= 1
 * (arithmetic). */
template <typename Elem>
static void power_step(Elem *v_out, Elem *v_aa, Elem *v_bb, Elem *v_flg, Elem *v_tmp)
{
    typedef typename signed_conv<Elem>::type SElem;
    vbxx(VAND, v_flg, 1, v_bb);
    vbxx(VMUL, v_tmp, v_out, v_aa);
    vbxx(VCMV_NZ, v_out, v_tmp, v_flg);
    vbxx(VMUL, v_aa, v_aa, v_aa);
    vbxx(VSHR, (SElem *)v_bb, (SElem *)v_bb, 1);
}

/* The template vbw_vec_power.h declares. */
template <typename Elem>
int vbw_vec_power(Elem *v_out, Elem *v_base, Elem *v_exp, unsigned int vl)
{
    typedef typename word_sized<Elem>::type Word;
    const int exponent_bits = 8 * (int)sizeof(Elem);

    if (vl == 0)
        return VBW_SUCCESS;

    vbx_sp_push();
    Elem *v_aa = (Elem *)vbx_sp_malloc(vl * sizeof(Elem));
    Elem *v_bb = (Elem *)vbx_sp_malloc(vl * sizeof(Elem));
    Elem *v_flg = (Elem *)vbx_sp_malloc(vl * sizeof(Elem));
    Elem *v_tmp = (Elem *)vbx_sp_malloc(vl * sizeof(Elem));
    if (!v_aa || !v_bb || !v_flg || !v_tmp) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    vbx_set_vl(vl);
    vbxx(VMOV, v_aa, v_base); /* VE moves */
    vbxx(VMOV, v_bb, v_exp);
    vbxx(VMOV, v_out, 1); /* SE: 1 broadcast */

    for (int i = 0; i < exponent_bits; i++) {
        power_step(v_out, v_aa, v_bb, v_flg, v_tmp);
        /* v_tmp is free again until the next step's product: it holds the count. No check
         * after the last bit: the loop ends anyway. */
        if (i % COUNT_PERIOD == COUNT_PERIOD - 1 && i < exponent_bits - 1 &&
            count_nonzero(v_tmp, v_bb) == 0)
            break;
    }

    /* A negative exponent gives 0: -exp > 0 (the subtraction's flag corrects exp = MIN). */
    if (type_sign<Elem>::is_signed) {
        vbxx(VSUB, v_tmp, (Word)0, v_exp);
        vbxx(VCMV_GTZ, v_out, (Word)0, v_tmp);
    }

    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* The C entry points, one per element type (vbx_types.h), and the template's instances, for
 * C++ callers that see only its declaration in vbw_vec_power.h (an implicit instance may be
 * inlined away). */
#define VBW_VEC_POWER_C_(suffix, Elem_) \
    template int vbw_vec_power<Elem_>(Elem_ *, Elem_ *, Elem_ *, unsigned int); \
    extern "C" int vbw_vec_power_##suffix(Elem_ *v_out, Elem_ *v_base, Elem_ *v_exp, unsigned int vl) \
    { \
        return vbw_vec_power(v_out, v_base, v_exp, vl); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_VEC_POWER_C_)
#undef VBW_VEC_POWER_C_

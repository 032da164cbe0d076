/*
 * vbw_vec_add.cpp - vbxware: element-wise addition of two vectors in the scratchpad, for the six
 * element types (a C++ template, as the SDK's vbw_vec_add; written with the vbxx layer).
 *
 * One vector instruction processes a row in ascending order, a wavefront (WB bytes,
 * WB = scratchpad_alignment_bytes) at a time, so a destination that overlaps a source at a
 * LOWER address (or coincides with it) is safe, while a destination above a source inside its
 * range ("copy-forward") would read elements the same instruction has already overwritten
 * (mxp-spec.md section 3.2). Three cases:
 *
 *   1. no copy-forward overlap with either source: one VADD over all n elements;
 *   2. copy-forward overlap only (no source lies above the destination inside its range):
 *      walk the vector backwards as a 2D operation whose rows are one wavefront long (WB bytes,
 *      WB / sizeof(T) elements) with increments of -WB bytes, then the leading elements that
 *      do not fill a row with one short 1D VADD;
 *   3. the destination lies above one source and below the other, both overlapping: add
 *      into a temporary vector, then move it to the destination (vbx_sp_push/pop around
 *      the temporary).
 *
 * The move of case 3 is the SDK's two-operand vbxx(VMOV, d, a): a VE VMOV. A length of 0
 * issues nothing.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_vec_add.h"

/* d lies above s, inside s's n elements: an ascending pass would read overwritten elements. */
template <typename Elem> static bool copies_forward(const Elem *d, const Elem *s, int n)
{
    return d > s && d < s + n;
}

/* d lies below s, inside d's n elements: a descending pass would read overwritten elements. */
template <typename Elem> static bool copies_backward(const Elem *d, const Elem *s, int n)
{
    return d < s && s < d + n;
}

template <typename Elem>
static int vbw_vec_add(Elem *v_out, Elem *v_in1, Elem *v_in2, unsigned int vl)
{
    if (vl == 0)
        return VBW_SUCCESS;

    const int n = vl; /* as an int, for the index arithmetic */
    const bool fwd = copies_forward(v_out, v_in1, n) || copies_forward(v_out, v_in2, n);

    if (!fwd) {
        vbx_set_vl(n);
        vbxx(VADD, v_out, v_in1, v_in2);
        return VBW_SUCCESS;
    }

    if (!copies_backward(v_out, v_in1, n) && !copies_backward(v_out, v_in2, n)) {
        const int wb = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
        const int row = wb / (int)sizeof(Elem); /* elements per wavefront */
        const int rows = n / row;
        const int lead = n - rows * row;
        if (rows > 0) {
            const int last = lead + (rows - 1) * row; /* first element of the highest row */
            vbx_set_vl(row, rows);
            vbx_set_2D(-wb, -wb, -wb);
            vbxx(VADD, v_out + last, v_in1 + last, v_in2 + last);
        }
        if (lead > 0) {
            vbx_set_vl(lead);
            vbxx(VADD, v_out, v_in1, v_in2);
        }
        return VBW_SUCCESS;
    }

    vbx_sp_push();
    Elem *v_tmp = (Elem *)vbx_sp_malloc(n * sizeof(Elem));
    if (v_tmp == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_set_vl(n);
    vbxx(VADD, v_tmp, v_in1, v_in2);
    vbxx(VMOV, v_out, v_tmp); /* VE move */
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* The C entry points, one per element type (vbx_types.h). */
#define VBW_VEC_ADD_C_(suffix, Elem_) \
    extern "C" int vbw_vec_add_##suffix(Elem_ *v_out, Elem_ *v_in1, Elem_ *v_in2, unsigned int vl) \
    { \
        return vbw_vec_add(v_out, v_in1, v_in2, vl); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_VEC_ADD_C_)
#undef VBW_VEC_ADD_C_

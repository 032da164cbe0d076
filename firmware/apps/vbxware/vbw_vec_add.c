/*
 * vbw_vec_add.c - vbxware: element-wise addition of two byte vectors in the scratchpad.
 *
 * One vector instruction processes a row in ascending order, a wavefront at a time, so a
 * destination that overlaps a source at a LOWER address (or coincides with it) is safe,
 * while a destination above a source inside its range ("copy-forward") would read elements
 * the same instruction has already overwritten (mxp-spec.md section 3.2). Three cases:
 *
 *   1. no copy-forward overlap with either source: one VADD over all n elements;
 *   2. copy-forward overlap only (no source lies above the destination inside its range):
 *      walk the vector backwards as a 2D operation whose rows are WB elements long
 *      (WB = scratchpad_alignment_bytes, one byte wavefront) with increments of -WB bytes,
 *      then the n % WB leading elements with one short 1D VADD;
 *   3. the destination lies above one source and below the other, both overlapping: add
 *      into a temporary vector, then move it to the destination (vbx_sp_push/pop around
 *      the temporary).
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_vec_add.h"

/* d lies above s, inside s's n bytes: an ascending pass would read overwritten elements. */
static int copies_forward(const vbx_byte_t *d, const vbx_byte_t *s, int n)
{
    return d > s && d < s + n;
}

/* d lies below s, inside d's n bytes: a descending pass would read overwritten elements. */
static int copies_backward(const vbx_byte_t *d, const vbx_byte_t *s, int n)
{
    return d < s && s < d + n;
}

int vbw_vec_add_byte(vbx_byte_t *v_out, vbx_byte_t *v_in1, vbx_byte_t *v_in2, const int n)
{
    int fwd = copies_forward(v_out, v_in1, n) || copies_forward(v_out, v_in2, n);

    if (!fwd) {
        vbx_set_vl(n);
        vbx(VVB, VADD, v_out, v_in1, v_in2);
        return VBW_SUCCESS;
    }

    if (!copies_backward(v_out, v_in1, n) && !copies_backward(v_out, v_in2, n)) {
        const int wb = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
        const int rows = n / wb;
        const int lead = n - rows * wb;
        if (rows > 0) {
            const int last = lead + (rows - 1) * wb;  /* first element of the highest row */
            vbx_set_vl(wb, rows);
            vbx_set_2D(-wb, -wb, -wb);
            vbx(VVB, VADD, v_out + last, v_in1 + last, v_in2 + last);
        }
        if (lead > 0) {
            vbx_set_vl(lead);
            vbx(VVB, VADD, v_out, v_in1, v_in2);
        }
        return VBW_SUCCESS;
    }

    vbx_sp_push();
    vbx_byte_t *v_tmp = vbx_sp_malloc(n * sizeof(vbx_byte_t));
    if (v_tmp == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_set_vl(n);
    vbx(VVB, VADD, v_tmp, v_in1, v_in2);
    vbx(VVB, VMOV, v_out, v_tmp, 0);
    vbx_sp_pop();
    return VBW_SUCCESS;
}

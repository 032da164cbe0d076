/*
 * vbw_mtx_median.c - vbxware: 2-D median filters on the MXP (signed bytes, and the four
 * bytes of 32-bit aRGB pixels).
 *
 * Method, for a filter of fh rows x fw columns (taps = fh * fw, odd; the median is the
 * element of rank m = taps / 2 counting from 0):
 *
 *   - The scratchpad holds taps equal "slots" of vl elements, plus v_sub and v_temp; vl is
 *     the free space (less one alignment granule per allocation) split into taps + 2 equal
 *     vectors, rounded down to whole image rows. The output is computed in bands of
 *     rows_per_band = vl / image_width rows (the last band is shorter).
 *   - Per band of output rows l .., fh 2-D DMAs bring image rows l + r .. into slot r
 *     (window row r), packed at image_width elements per row; then slot c * fh + r = slot r
 *     read c elements further on (fh * (fw - 1) VMOVs). So for output pixel (y, x), at
 *     element i = (y - l) * image_width + x, slot c * fh + r holds input pixel
 *     (y + r, x + c). Near the end of a packed row the shifted reads run into the next row:
 *     those output columns are meaningless.
 *   - A partial selection sort over the slots, as whole-vector operations: for j < m, a
 *     compare-exchange of slot j with every later slot leaves the minimum in slot j; then
 *     slot m keeps the minimum of slots m .. taps - 1, which is the median. Compare: VSUB,
 *     then VCMV_LTZ on the difference; its flag (signed overflow, or unsigned borrow) makes
 *     "LTZ" an exact a < b even when the subtraction wraps (mxp-spec.md section 3.5).
 *   - One 2-D DMA writes slot m to the band's output rows.
 *
 * The hardware interlocks order the next band's DMA-in after the vector instructions still
 * reading the slots, and its vector instructions after the DMA-out reading slot m, so there
 * is no vbx_sync() inside the loop; the one at the end makes the output valid on return.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_median.h"

/*
 * Elements per slot for a filter of taps slots plus v_sub and v_temp, each element
 * elem_bytes wide, in whole rows of image_width elements; 0 when not even one row fits.
 */
static int slot_elements(int taps, int elem_bytes, int image_width)
{
    const int granule = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
    const int vl = (vbx_sp_getfree() - 3 * granule) / ((taps + 2) * elem_bytes);

    return vl / image_width * image_width;
}

/*
 * Window rows r = 0 .. fh - 1 of a band of rows image rows: image rows r .. r + rows - 1
 * from band_input, image_width elements each (row_bytes), into slot r, rows packed.
 */
static void dma_in_window_rows(vbx_void_t *v_slots, int slot_bytes, const void *band_input,
                               int fh, int rows, int row_bytes, int pitch_bytes)
{
    for (int r = 0; r < fh; r++)
        vbx_dma_to_vector_2D((char *)v_slots + r * slot_bytes,
                             (const char *)band_input + r * pitch_bytes, row_bytes, rows,
                             row_bytes, pitch_bytes);
}

/*
 * Slot c * fh + r = slot r advanced by c elements, for c = 1 .. fw - 1 (VL already set to
 * the band's elements). Moves bytes (signed) or whole 32-bit pixels, as the caller's data.
 */
static void shift_window_columns(vbx_void_t *v_slots, int slot_bytes, int fh, int fw,
                                 int elem_bytes)
{
    for (int c = 1; c < fw; c++) {
        for (int r = 0; r < fh; r++) {
            char *dst = (char *)v_slots + (c * fh + r) * slot_bytes;
            char *src = (char *)v_slots + r * slot_bytes + c * elem_bytes;
            if (elem_bytes == (int)sizeof(vbx_uword_t))
                vbx(VVWU, VMOV, dst, src, 0);
            else
                vbx(VVB, VMOV, dst, src, 0);
        }
    }
}

/* How the sort compares bytes: image samples are signed, pixel channels unsigned. */
enum byte_sign { UNSIGNED_BYTES, SIGNED_BYTES };

/* One byte-wise vector instruction, signed (VVB) or unsigned (VVBU). */
static void byte_op(enum byte_sign sign, vinstr_t op, vbx_void_t *d, vbx_void_t *a,
                    vbx_void_t *b)
{
    if (sign == SIGNED_BYTES)
        vbx(VVB, op, d, a, b);
    else
        vbx(VVBU, op, d, a, b);
}

/* lo = min(lo, hi) and hi = max(lo, hi), element-wise. */
static void compare_exchange(enum byte_sign sign, vbx_void_t *lo, vbx_void_t *hi,
                             vbx_void_t *v_sub, vbx_void_t *v_temp)
{
    byte_op(sign, VMOV, v_temp, lo, 0);
    byte_op(sign, VSUB, v_sub, hi, lo); /* "< 0" (flag-corrected) where hi < lo */
    byte_op(sign, VCMV_LTZ, lo, hi, v_sub);
    byte_op(sign, VCMV_LTZ, hi, v_temp, v_sub);
}

/* keep = min(keep, other), element-wise. */
static void keep_minimum(enum byte_sign sign, vbx_void_t *keep, vbx_void_t *other,
                         vbx_void_t *v_sub)
{
    byte_op(sign, VSUB, v_sub, other, keep);
    byte_op(sign, VCMV_LTZ, keep, other, v_sub);
}

/*
 * Leaves in slot taps / 2 the element-wise median of the taps slots (bytes; VL already set
 * to the band's bytes). Returns that slot.
 */
static vbx_void_t *median_of_slots(enum byte_sign sign, vbx_void_t *v_slots, int slot_bytes,
                                   int taps, vbx_void_t *v_sub, vbx_void_t *v_temp)
{
    char *slot = v_slots;
    const int m = taps / 2;

    for (int j = 0; j < m; j++)
        for (int i = j + 1; i < taps; i++)
            compare_exchange(sign, slot + j * slot_bytes, slot + i * slot_bytes, v_sub, v_temp);
    for (int i = m + 1; i < taps; i++)
        keep_minimum(sign, slot + m * slot_bytes, slot + i * slot_bytes, v_sub);
    return slot + m * slot_bytes;
}

/*
 * Both filters: elem_bytes = 1 for signed byte samples, 4 for aRGB pixels (sorted per
 * unsigned channel byte); out_cols elements of each output row are written.
 */
static int median_ext(char *output, char *input, int filter_height, int filter_width,
                      int image_height, int image_width, int image_pitch, int elem_bytes,
                      int out_cols)
{
    const int taps = filter_height * filter_width;
    const int out_rows = image_height - filter_height;
    const int row_bytes = image_width * elem_bytes;
    const int pitch_bytes = image_pitch * elem_bytes;
    const enum byte_sign sign = elem_bytes == 1 ? SIGNED_BYTES : UNSIGNED_BYTES;

    vbx_sp_push();
    const int vl = slot_elements(taps, elem_bytes, image_width);
    const int slot_bytes = vl * elem_bytes;
    vbx_void_t *v_input = vbx_sp_malloc(taps * slot_bytes);
    vbx_void_t *v_sub = vbx_sp_malloc(slot_bytes);
    vbx_void_t *v_temp = vbx_sp_malloc(slot_bytes);
    if (vl == 0 || !v_input || !v_sub || !v_temp) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    const int rows_per_band = vl / image_width;
    for (int l = 0; l < out_rows; l += rows_per_band) {
        const int rows = out_rows - l < rows_per_band ? out_rows - l : rows_per_band;
        dma_in_window_rows(v_input, slot_bytes, input + l * pitch_bytes, filter_height, rows,
                           row_bytes, pitch_bytes);
        vbx_set_vl(rows * image_width);
        shift_window_columns(v_input, slot_bytes, filter_height, filter_width, elem_bytes);
        if (elem_bytes != 1)
            vbx_set_vl(rows * row_bytes); /* the pixels' bytes, each sorted on its own */
        vbx_void_t *v_median = median_of_slots(sign, v_input, slot_bytes, taps, v_sub, v_temp);
        vbx_dma_to_host_2D(output + l * pitch_bytes, v_median, out_cols * elem_bytes, rows,
                           pitch_bytes, row_bytes);
    }

    vbx_sp_pop();
    vbx_sync();
    return VBW_SUCCESS;
}

int vbw_mtx_median_ext_byte(int8_t *output, int8_t *input, const int filter_height,
                            const int filter_width, const int image_height, const int image_width,
                            const int image_pitch)
{
    return median_ext((char *)output, (char *)input, filter_height, filter_width, image_height,
                      image_width, image_pitch, sizeof(vbx_byte_t), image_width - filter_width);
}

/* Whole rows go out (as the SDK routine): the last filter_width columns are meaningless. */
int vbw_mtx_median_ext_argb32(unsigned *output, unsigned *input, const int filter_height,
                              const int filter_width, const int image_height,
                              const int image_width, const int image_pitch)
{
    return median_ext((char *)output, (char *)input, filter_height, filter_width, image_height,
                      image_width, image_pitch, sizeof(vbx_uword_t), image_width);
}

/*
 * vbw_mtx_median.cpp - vbxware: 2-D median filters on the MXP: the six element types (a C++
 * template, as the SDK's vbw_mtx_median_ext; written with the vbxx layer), and the four
 * bytes of 32-bit aRGB pixels (vbw_mtx_median_ext_argb32, plain C in the SDK, here the same
 * template).
 *
 * One template, median_ext<Pixel, Sample>, does both: the window is built by moving whole
 * pixels (type Pixel) and sorted as elements of type Sample. For the typed filters both are
 * the element type; for aRGB a pixel is a vbx_uword_t and the sort runs over its bytes as
 * vbx_ubyte_t, each channel on its own. Method, for a filter of fh rows x fw columns
 * (taps = fh * fw, odd; the median is the element of rank m = taps / 2 counting from 0):
 *
 *   - The scratchpad holds taps equal "slots" of vl pixels, plus v_sub and v_temp; vl is
 *     the free space (less one alignment granule per allocation) split into taps + 2 equal
 *     vectors, rounded down to whole image rows. The output is computed in bands of
 *     rows_per_band = vl / image_width rows (the last band is shorter).
 *   - Per band of output rows l .., fh 2-D DMAs bring image rows l + r .. into slot r
 *     (window row r), packed at image_width pixels per row; then slot c * fh + r = slot r
 *     read c pixels further on (fh * (fw - 1) VMOVs). So for output pixel (y, x), at
 *     pixel i = (y - l) * image_width + x, slot c * fh + r holds input pixel
 *     (y + r, x + c). Near the end of a packed row the shifted reads run into the next row:
 *     those output columns are meaningless.
 *   - A partial selection sort over the slots, as whole-vector operations on samples: for
 *     j < m, a compare-exchange of slot j with every later slot leaves the minimum in slot j;
 *     then slot m keeps the minimum of slots m .. taps - 1, which is the median. Compare:
 *     VSUB, then VCMV_LTZ on the difference; its flag (signed overflow, or unsigned borrow)
 *     makes "LTZ" an exact a < b even when the subtraction wraps (mxp-spec.md section 3.5).
 *   - One 2-D DMA writes slot m to the band's output rows.
 *
 * The moves of the typed filters are the SDK template's two-operand vbxx(VMOV, d, a): VE VMOVs.
 * Those of the aRGB filter are VV VMOVs with B word 0 (vbxx(VMOV, d, a, a); vbxx sends 0 as
 * the B word of every VMOV), the commands of the SDK's C routine, vbx(VVWU/VVBU, VMOV, d, a, 0).
 *
 * The hardware interlocks order the next band's DMA-in after the vector instructions still
 * reading the slots, and its vector instructions after the DMA-out reading slot m, so there
 * is no vbx_sync() inside the loop; the one at the end makes the output valid on return.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_median.h"
#include "vbw_mtx_median_argb32.h"

/*
 * Pixels per slot for a filter of taps slots plus v_sub and v_temp, each pixel pixel_bytes
 * wide, in whole rows of image_width pixels; 0 when not even one row fits.
 */
static int slot_pixels(int taps, int pixel_bytes, int image_width)
{
    const int granule = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
    const int vl = (vbx_sp_getfree() - 3 * granule) / ((taps + 2) * pixel_bytes);

    return vl / image_width * image_width;
}

/*
 * Window rows r = 0 .. fh - 1 of a band of rows image rows: image rows r .. r + rows - 1
 * from band_input, image_width pixels each (row_bytes), into slot r, rows packed.
 */
static void dma_in_window_rows(vbx_void_t *v_slots, int slot_bytes, const void *band_input,
                               int fh, int rows, int row_bytes, int pitch_bytes)
{
    for (int r = 0; r < fh; r++)
        vbx_dma_to_vector_2D((char *)v_slots + r * slot_bytes,
                             (const char *)band_input + r * pitch_bytes, row_bytes, rows,
                             row_bytes, pitch_bytes);
}

/* A slot: slot_bytes apart from the previous one, whatever the element type. */
template <typename Elem> static Elem *slot_at(Elem *v_slots, int slot_bytes, int index)
{
    return (Elem *)((char *)v_slots + index * slot_bytes);
}

/* dst = src: a VV move (B word 0) when VvMoves, else a VE move. */
template <bool VvMoves, typename Elem> static void move_vector(Elem *dst, Elem *src)
{
    if (VvMoves)
        vbxx(VMOV, dst, src, src);
    else
        vbxx(VMOV, dst, src);
}

/*
 * Slot c * fh + r = slot r advanced by c pixels, for c = 1 .. fw - 1 (VL already set to the
 * band's pixels).
 */
template <bool VvMoves, typename Pixel>
static void shift_window_columns(Pixel *v_slots, int slot_bytes, int fh, int fw)
{
    for (int c = 1; c < fw; c++) {
        for (int r = 0; r < fh; r++) {
            Pixel *dst = slot_at(v_slots, slot_bytes, c * fh + r);
            Pixel *src = slot_at(v_slots, slot_bytes, r) + c;
            move_vector<VvMoves>(dst, src);
        }
    }
}

/* lo = min(lo, hi) and hi = max(lo, hi), element-wise. */
template <bool VvMoves, typename Sample>
static void compare_exchange(Sample *lo, Sample *hi, Sample *v_sub, Sample *v_temp)
{
    move_vector<VvMoves>(v_temp, lo);
    vbxx(VSUB, v_sub, hi, lo); /* "< 0" (flag-corrected) where hi < lo */
    vbxx(VCMV_LTZ, lo, hi, v_sub);
    vbxx(VCMV_LTZ, hi, v_temp, v_sub);
}

/* keep = min(keep, other), element-wise. */
template <typename Sample> static void keep_minimum(Sample *keep, Sample *other, Sample *v_sub)
{
    vbxx(VSUB, v_sub, other, keep);
    vbxx(VCMV_LTZ, keep, other, v_sub);
}

/*
 * Leaves in slot taps / 2 the element-wise median of the taps slots (VL already set to the
 * band's samples). Returns that slot.
 */
template <bool VvMoves, typename Sample>
static Sample *median_of_slots(Sample *v_slots, int slot_bytes, int taps, Sample *v_sub,
                               Sample *v_temp)
{
    const int m = taps / 2;

    for (int j = 0; j < m; j++)
        for (int i = j + 1; i < taps; i++)
            compare_exchange<VvMoves>(slot_at(v_slots, slot_bytes, j),
                                      slot_at(v_slots, slot_bytes, i), v_sub, v_temp);
    for (int i = m + 1; i < taps; i++)
        keep_minimum(slot_at(v_slots, slot_bytes, m), slot_at(v_slots, slot_bytes, i), v_sub);
    return slot_at(v_slots, slot_bytes, m);
}

/*
 * Both kinds of filter: pixels of type Pixel, sorted as samples of type Sample (a pixel is
 * sizeof(Pixel) / sizeof(Sample) samples); out_cols pixels of each output row are written.
 */
template <typename Pixel, typename Sample>
static int median_ext(Pixel *output, Pixel *input, int filter_height, int filter_width,
                      int image_height, int image_width, int image_pitch, int out_cols)
{
    const bool vv_moves = sizeof(Sample) != sizeof(Pixel); /* the aRGB filter (C in the SDK) */
    const int taps = filter_height * filter_width;
    const int out_rows = image_height - filter_height;
    const int row_bytes = image_width * sizeof(Pixel);
    const int pitch_bytes = image_pitch * sizeof(Pixel);

    vbx_sp_push();
    const int vl = slot_pixels(taps, sizeof(Pixel), image_width);
    const int slot_bytes = vl * sizeof(Pixel);
    Pixel *v_input = (Pixel *)vbx_sp_malloc(taps * slot_bytes);
    Sample *v_sub = (Sample *)vbx_sp_malloc(slot_bytes);
    Sample *v_temp = (Sample *)vbx_sp_malloc(slot_bytes);
    if (vl == 0 || !v_input || !v_sub || !v_temp) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    const int rows_per_band = vl / image_width;
    for (int l = 0; l < out_rows; l += rows_per_band) {
        const int rows = out_rows - l < rows_per_band ? out_rows - l : rows_per_band;
        dma_in_window_rows(v_input, slot_bytes, input + l * image_pitch, filter_height, rows,
                           row_bytes, pitch_bytes);
        vbx_set_vl(rows * image_width);
        shift_window_columns<vv_moves>(v_input, slot_bytes, filter_height, filter_width);
        if (sizeof(Sample) != sizeof(Pixel))
            vbx_set_vl(rows * row_bytes / (int)sizeof(Sample)); /* the pixels' samples */
        Sample *v_median =
            median_of_slots<vv_moves>((Sample *)v_input, slot_bytes, taps, v_sub, v_temp);
        vbx_dma_to_host_2D(output + l * image_pitch, v_median, out_cols * sizeof(Pixel), rows,
                           pitch_bytes, row_bytes);
    }

    vbx_sp_pop();
    vbx_sync();
    return VBW_SUCCESS;
}

/* The typed filters (the template vbw_mtx_median.h declares): only the columns whose whole
 * window lies inside the row go out. */
template <typename Elem>
int vbw_mtx_median_ext(Elem *output, Elem *input, const int filter_height, const int filter_width,
                       const int image_height, const int image_width, const int image_pitch)
{
    return median_ext<Elem, Elem>(output, input, filter_height, filter_width, image_height,
                                  image_width, image_pitch, image_width - filter_width);
}

/* The C entry points, one per element type (vbx_types.h), and the template's instances, for
 * C++ callers that see only its declaration in vbw_mtx_median.h (an implicit instance may be
 * inlined away). */
#define VBW_MTX_MEDIAN_EXT_C_(suffix, Elem_) \
    template int vbw_mtx_median_ext<Elem_>(Elem_ *, Elem_ *, const int, const int, const int, const int, const int); \
    extern "C" int vbw_mtx_median_ext_##suffix(Elem_ *output, Elem_ *input, const int filter_height, const int filter_width, const int image_height, const int image_width, const int image_pitch) \
    { \
        return vbw_mtx_median_ext<Elem_>(output, input, filter_height, filter_width, image_height, image_width, image_pitch); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_MTX_MEDIAN_EXT_C_)
#undef VBW_MTX_MEDIAN_EXT_C_

/* Whole rows go out (as the SDK routine): the last filter_width columns are meaningless.
 * (unsigned is unsigned int, vbx_uword_t unsigned long: the same 32 bits.) */
extern "C" int vbw_mtx_median_ext_argb32(unsigned *output, unsigned *input, const int filter_height,
                                         const int filter_width, const int image_height,
                                         const int image_width, const int image_pitch)
{
    return median_ext<vbx_uword_t, vbx_ubyte_t>((vbx_uword_t *)output, (vbx_uword_t *)input,
                                                filter_height, filter_width, image_height,
                                                image_width, image_pitch, image_width);
}

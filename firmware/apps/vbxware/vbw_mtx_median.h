/*
 * vbw_mtx_median.h - vbxware: 2-D median filters over an image in external memory
 * (mxp-spec.md sections 2.9 and 7.2): the six instances of the SDK's median template
 * (vbw_mtx_median_ext_<type>, extern "C" functions of vbw_mtx_median.cpp; the benchmark calls
 * the byte one), and in C++ the template itself. The per-channel aRGB median is declared in
 * vbw_mtx_median_argb32.h.
 */
#ifndef VBW_MTX_MEDIAN_H
#define VBW_MTX_MEDIAN_H

#include "vbx.h"

#ifdef __cplusplus
/* The template behind the C functions (defined in vbw_mtx_median.cpp, as the SDK declares it). */
template <typename Elem>
int vbw_mtx_median_ext(Elem *output, Elem *input, const int filter_height, const int filter_width,
                       const int image_height, const int image_width, const int image_pitch);

extern "C" {
#endif

/*
 * output[l * image_pitch + k] = the median of the filter_height x filter_width window of
 * elements whose top-left corner is input[l * image_pitch + k], for
 * l < image_height - filter_height and k < image_width - filter_width; nothing else of output
 * is written. filter_height * filter_width must be odd. Runs on the MXP and waits for it
 * (ends with vbx_sync()). Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when the
 * scratchpad cannot hold the window of one image row.
 */
int vbw_mtx_median_ext_byte(int8_t *output, int8_t *input, const int filter_height,
                            const int filter_width, const int image_height, const int image_width,
                            const int image_pitch);
int vbw_mtx_median_ext_ubyte(uint8_t *output, uint8_t *input, const int filter_height,
                             const int filter_width, const int image_height,
                             const int image_width, const int image_pitch);
int vbw_mtx_median_ext_half(int16_t *output, int16_t *input, const int filter_height,
                            const int filter_width, const int image_height, const int image_width,
                            const int image_pitch);
int vbw_mtx_median_ext_uhalf(uint16_t *output, uint16_t *input, const int filter_height,
                             const int filter_width, const int image_height,
                             const int image_width, const int image_pitch);
int vbw_mtx_median_ext_word(int32_t *output, int32_t *input, const int filter_height,
                            const int filter_width, const int image_height, const int image_width,
                            const int image_pitch);
int vbw_mtx_median_ext_uword(uint32_t *output, uint32_t *input, const int filter_height,
                             const int filter_width, const int image_height,
                             const int image_width, const int image_pitch);

#ifdef __cplusplus
}
#endif

#endif

/*
 * vbw_mtx_median_argb32.h - vbxware: 2-D median filter of a 32-bit aRGB image in external
 * memory, each colour channel on its own (the SDK's vbw_mtx_median_ext_argb32, a C function;
 * mxp-spec.md section 7.2). Defined in vbw_mtx_median.cpp, with the typed median filters.
 */
#ifndef VBW_MTX_MEDIAN_ARGB32_H
#define VBW_MTX_MEDIAN_ARGB32_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The median of vbw_mtx_median_ext_<type> (vbw_mtx_median.h) on 32-bit pixels, each of the
 * four bytes filtered on its own (unsigned): for l < image_height - filter_height, whole rows
 * of image_width pixels of output are written (columns k >= image_width - filter_width hold
 * meaningless values). output may equal input (in place): a band's rows are written only
 * after the rows it reads, and later bands read only rows below it. Waits for the MXP
 * (ends with vbx_sync()). Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when the
 * scratchpad cannot hold the window of one image row.
 */
int vbw_mtx_median_ext_argb32(unsigned *output, unsigned *input, const int filter_height,
                              const int filter_width, const int image_height,
                              const int image_width, const int image_pitch);

#ifdef __cplusplus
}
#endif

#endif

/*
 * vbw_mtx_sobel.h - vbxware: 3x3 Sobel edge magnitude of a 32-bit aRGB image (C port of the
 * SDK's vbw_sobel_argb32_3x3; mxp-spec.md section 7.2).
 */
#ifndef VBW_MTX_SOBEL_H
#define VBW_MTX_SOBEL_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratchpad bytes budgeted per image column: the width of a strip processed in one pass is
 * the free scratchpad divided by this (whole rows when that exceeds the image width). */
#define VBW_SOBEL_BYTES_PER_COLUMN 32

/*
 * Pixels are words with blue in byte 0, green in 1, red in 2 (alpha in 3). For every pixel:
 * L = luma = (25 b + 129 g + 66 r + 128) >> 8. For interior pixels (0 < y < height - 1,
 * 0 < x < width - 1):
 *   gx = |colsum(y, x - 1) - colsum(y, x + 1)|, colsum(y, c) = L[y-1][c] + 2 L[y][c] + L[y+1][c]
 *   gy = |rowsum(y - 1, x) - rowsum(y + 1, x)|, rowsum(r, x) = L[r][x-1] + 2 L[r][x] + L[r][x+1]
 *   edge = min(255, (gx + gy) >> renorm), output pixel = edge * 0x00010101 (alpha 0);
 * border pixels are 0 (width = image_width, height = image_height). Rows are image_pitch pixels
 * apart in both images; width and height are at least 3, and output and input must not
 * overlap. Runs on the MXP and waits for it (ends with vbx_sync()): output is complete on
 * return. Returns VBW_SUCCESS, or VBW_ERROR_SP_ALLOC_FAILED when the scratchpad cannot hold a
 * strip 3 pixels wide.
 */
int vbw_sobel_argb32_3x3(unsigned *output, unsigned *input, const short image_width,
                         const short image_height, const short image_pitch, const short renorm);

#ifdef __cplusplus
}
#endif

#endif

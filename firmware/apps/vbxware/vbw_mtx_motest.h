/*
 * vbw_mtx_motest.h - vbxware: block-matching motion estimation (sum of absolute differences
 * of a reference block against every position of a search window), mxp-spec.md section 7.2.
 */
#ifndef VBW_MTX_MOTEST_H
#define VBW_MTX_MOTEST_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned char input_type;         /* image pixels */
typedef unsigned short intermediate_type; /* per-pixel differences (3-D variant only) */
typedef unsigned int output_type;         /* sums of absolute differences */

/*
 * Problem shape and the scratchpad buffers of one motion-estimation run. The caller fills
 * the shape; vbw_mtx_motest_byte_setup allocates the buffers.
 */
typedef struct {
    int image_width;  /* pitch of the image rows, in pixels */
    int image_height;
    int block_width;  /* reference block */
    int block_height;
    int search_width; /* number of horizontal / vertical offsets searched */
    int search_height;
    vbx_ubyte_t *v_block;   /* block_height rows of (block_width + search_width) pixels,
                               packed in place to block_width x block_height */
    vbx_ubyte_t *v_img;     /* (block_height + search_height) rows of
                               (block_width + search_width) pixels */
    vbx_uword_t *v_result;  /* search_height x search_width sums */
    vbx_ubyte_t *v_img_sub; /* one column strip: (block_height + search_height) x block_width */
    vbx_ubyte_t *v_absdiff; /* block_width x block_height (not used by the 2-D version) */
} vbw_motest_t;

/* Allocates m's scratchpad buffers (bracket with vbx_sp_push/vbx_sp_pop). Returns VBW_SUCCESS
 * or VBW_ERROR_SP_ALLOC_FAILED. */
int vbw_mtx_motest_byte_setup(vbw_motest_t *m);

/* result[l * search_width + k] = SAD of the block at x's origin against y at row l, column k,
 * for l < search_height, k < search_width. Queues the DMAs and vector instructions (the last
 * is the DMA-out to result) and returns without waiting: vbx_sync() before using result. */
int vbw_mtx_motest_byte(output_type *result, input_type *x, input_type *y, vbw_motest_t *m);

/* The same on the CPU (the scalar reference, with m's shape; declared here as in the SDK, but
 * defined with the scalar reference functions, which here are in the benchmark program). */
void vbw_mtx_motest_scalar_byte(output_type *result, input_type *x, input_type *y, vbw_motest_t *m);

#ifdef __cplusplus
}
#endif

#endif

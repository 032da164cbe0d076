/*
 * vbw_buffer.h - vbxware: a rotating prefetcher (C port of the SDK's vbw_buffer.h helper as
 * vbw_sobel_argb32_3x3 uses it; mxp-spec.md section 7.2).
 *
 * A rotating prefetcher streams equal-sized chunks of host memory (image rows, say) through a
 * small ring of scratchpad slots, so that the DMA of the next chunk overlaps the vector work
 * on the current one. Chunk k goes to slot k % num_slots. A slot is reused only after the
 * caller has taken its chunk and queued the vector instructions that read it: the MXP
 * interlocks a DMA-to-vector behind earlier vector reads of its range (mxp-spec.md 1.4), so
 * no sync is needed between taking a chunk and refetching into its slot.
 *
 * Every chunk has the same length (the 2018/2021 differences of the SDK helper concern a
 * short final chunk, which its sobel caller never has).
 */
#ifndef VBW_BUFFER_H
#define VBW_BUFFER_H

#include "vbx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VBW_PREFETCH_MAX_SLOTS 4

typedef struct {
    vbx_void_t *slot[VBW_PREFETCH_MAX_SLOTS];
    int num_slots;
    int chunk_bytes;      /* bytes per chunk (and per slot) */
    const char *src;      /* host address of chunk 0 */
    int src_stride;       /* host bytes from one chunk to the next */
    int num_chunks;       /* chunks in the stream */
    int fetched;          /* chunks whose DMA has been queued */
    int taken;            /* chunks handed to the caller */
} vbw_prefetch_t;

/* Allocates num_slots slots of chunk_bytes from the scratchpad (bracket with vbx_sp_push /
 * vbx_sp_pop) for a stream of num_chunks chunks, chunk k at src + k * src_stride. Nothing is
 * fetched yet. Returns VBW_SUCCESS or VBW_ERROR_SP_ALLOC_FAILED. */
int vbw_prefetch_init(vbw_prefetch_t *p, int num_slots, int chunk_bytes, const void *src, int src_stride,
                      int num_chunks);

/* Queues the DMA of the next chunk into its slot. Does nothing past the end of the stream,
 * or when every slot still holds a chunk the caller has not taken. */
void vbw_prefetch_fetch(vbw_prefetch_t *p);

/* The slot holding the oldest fetched chunk the caller has not taken yet (its DMA may still
 * be in flight: vector reads of it wait for the DMA by themselves). NULL if none. */
vbx_void_t *vbw_prefetch_take(vbw_prefetch_t *p);

#ifdef __cplusplus
}
#endif

#endif

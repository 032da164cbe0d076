/*
 * vbw_buffer.c - vbxware: the rotating prefetcher of vbw_buffer.h.
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_buffer.h"

int vbw_prefetch_init(vbw_prefetch_t *p, int num_slots, int chunk_bytes, const void *src, int src_stride,
                      int num_chunks)
{
    if (num_slots < 1 || num_slots > VBW_PREFETCH_MAX_SLOTS)
        return VBW_ERROR_SP_ALLOC_FAILED;
    p->num_slots = num_slots;
    p->chunk_bytes = chunk_bytes;
    p->src = src;
    p->src_stride = src_stride;
    p->num_chunks = num_chunks;
    p->fetched = 0;
    p->taken = 0;
    for (int i = 0; i < num_slots; i++) {
        p->slot[i] = vbx_sp_malloc(chunk_bytes);
        if (p->slot[i] == NULL)
            return VBW_ERROR_SP_ALLOC_FAILED;
    }
    return VBW_SUCCESS;
}

void vbw_prefetch_fetch(vbw_prefetch_t *p)
{
    if (p->fetched >= p->num_chunks || p->fetched - p->taken >= p->num_slots)
        return;
    vbx_dma_to_vector(p->slot[p->fetched % p->num_slots], p->src + p->fetched * p->src_stride,
                      p->chunk_bytes);
    p->fetched++;
}

vbx_void_t *vbw_prefetch_take(vbw_prefetch_t *p)
{
    if (p->taken >= p->fetched)
        return NULL;
    return p->slot[p->taken++ % p->num_slots];
}

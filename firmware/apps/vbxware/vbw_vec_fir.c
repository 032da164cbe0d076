/*
 * vbw_vec_fir.c - vbxware: 1-D FIR filter on the MXP, for the six element types.
 *
 * Method (element type T): the num_taps coefficients are DMA'd in once. The samples come in
 * chunks of an eighth of the free scratchpad through a 2-slot rotating prefetcher, so the
 * next chunk's DMA-in can run while the MXP filters the current one. Consecutive chunks
 * overlap by num_taps samples: a chunk of c samples yields c - num_taps outputs, and the next
 * chunk starts at the first sample of the next output. A chunk is filtered by ONE accumulate
 * 2-D VMUL with VL = num_taps and a row per sample of the chunk: row r multiplies the
 * coefficients (A, row increment 0) by samples r .. r + num_taps - 1 (B, increment one
 * element), and the accumulator writes the sum of the products to output r (D, increment one
 * element). Only the chunk's valid outputs are DMA'd out; the last num_taps rows read past
 * the chunk's samples and are discarded. With the test's 4096 samples and a 256 KB scratchpad
 * one chunk holds everything: one fetch, one VMUL of 4096 rows, one DMA-out of 4080 outputs.
 * The routine ends with vbx_sync(), then releases the scratchpad.
 *
 * The six instances come from one body: this file includes itself once per type, with
 * VBW_VEC_FIR_INSTANCE defined and VBX_TEMPLATE_T set for vbw_template_t.h (mxp-spec.md
 * section 6.5), which names them vbw_vec_fir_ext_<type>.
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_vec_fir_no_routine_sync.c, which
 * compiles its own copy of this file) leaves out the final vbx_sync().
 */
#ifndef VBW_VEC_FIR_INSTANCE

#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_vec_fir.h"

/*
 * A 2-slot rotating prefetcher, after the SDK's vbw_buffer.h of 2018. It DMAs windows of a
 * host array into two scratchpad slots in turn. Windows are fetch_bytes long and step bytes
 * apart (step < fetch_bytes: they overlap); a window is cut short at the end of the array, and
 * then, as in the 2018 version, fetch_bytes keeps that shorter length for every later fetch
 * (the 2021 version restores it). The FIR never fetches after a short window, so the two
 * versions behave the same here. (vbw_buffer.h's prefetcher only streams equal chunks, the
 * size of its slots; here the one window of the test is shorter than its slot.)
 */
typedef struct {
    vbx_void_t *slot[2];
    int length[2];    /* bytes fetched into each slot */
    int fetch_bytes;  /* length of the next full window */
    int step;         /* host bytes from one window's start to the next */
    const char *next; /* host address of the next window */
    const char *end;  /* end of the host array */
    int fill;         /* slot the next fetch writes */
    int current;      /* slot of the window being processed */
} rotating_prefetcher_t;

/* Allocates the two slots of slot_bytes each (issues nothing). */
static int prefetcher_init(rotating_prefetcher_t *p, int slot_bytes, const void *start,
                           const void *end, int step)
{
    p->slot[0] = vbx_sp_malloc(slot_bytes);
    p->slot[1] = vbx_sp_malloc(slot_bytes);
    p->length[0] = p->length[1] = 0;
    p->fetch_bytes = slot_bytes;
    p->step = step;
    p->next = start;
    p->end = end;
    p->fill = 0;
    p->current = 0;
    return p->slot[0] && p->slot[1] ? VBW_SUCCESS : VBW_ERROR_SP_ALLOC_FAILED;
}

/* Queues the DMA-in of the next window, if the array has one, into the next slot. */
static void prefetcher_fetch(rotating_prefetcher_t *p)
{
    if (p->next >= p->end)
        return;
    if (p->fetch_bytes > p->end - p->next)
        p->fetch_bytes = p->end - p->next; /* 2018: shorter for good */
    vbx_dma_to_vector(p->slot[p->fill], p->next, p->fetch_bytes);
    p->length[p->fill] = p->fetch_bytes;
    p->next += p->step;
    p->fill ^= 1;
}

/* The window being processed, and its length in bytes. */
static vbx_void_t *prefetcher_window(const rotating_prefetcher_t *p, int *bytes)
{
    *bytes = p->length[p->current];
    return p->slot[p->current];
}

/* Done with the current window (once its work is queued): the next one becomes current. */
static void prefetcher_rotate(rotating_prefetcher_t *p)
{
    p->current ^= 1;
}

#define VBW_VEC_FIR_INSTANCE
#define VBX_TEMPLATE_T VBX_BYTESIZE_DEF
#include "vbw_vec_fir.c"
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_UBYTESIZE_DEF
#include "vbw_vec_fir.c"
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_HALFSIZE_DEF
#include "vbw_vec_fir.c"
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_UHALFSIZE_DEF
#include "vbw_vec_fir.c"
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_WORDSIZE_DEF
#include "vbw_vec_fir.c"
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_UWORDSIZE_DEF
#include "vbw_vec_fir.c"
#undef VBX_TEMPLATE_T
#undef VBW_VEC_FIR_INSTANCE

#else /* VBW_VEC_FIR_INSTANCE: the routine for the element type VBX_TEMPLATE_T */

#include "vbw_template_t.h"

int VBX_T(vbw_vec_fir_ext)(vbx_mm_t *output, vbx_mm_t *input, vbx_mm_t *coeffs,
                           const int sample_size, const int num_taps)
{
    const int size = sizeof(vbx_sp_t);
    const int num_out = sample_size - num_taps;

    vbx_sp_push();
    const int chunk = vbx_sp_getfree() / 8 / size; /* samples per fetch */
    vbx_sp_t *v_coeffs = vbx_sp_malloc(num_taps * size);
    if (v_coeffs == NULL || chunk <= num_taps) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_dma_to_vector(v_coeffs, coeffs, num_taps * size);

    rotating_prefetcher_t v_in;
    int status = prefetcher_init(&v_in, chunk * size, input, input + sample_size,
                                 (chunk - num_taps) * size);
    vbx_sp_t *v_out = vbx_sp_malloc(chunk * size);
    if (status != VBW_SUCCESS || v_out == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    prefetcher_fetch(&v_in);
    for (int done = 0; done < num_out;) {
        int bytes;
        vbx_sp_t *v_sample = prefetcher_window(&v_in, &bytes);
        const int rows = bytes / size;
        const int n = rows - num_taps < num_out - done ? rows - num_taps : num_out - done;
        if (done + n < num_out)
            prefetcher_fetch(&v_in); /* the next chunk, while this one is filtered */

        vbx_set_vl(num_taps, rows);
        vbx_set_2D(size, 0, size);
        vbx_acc(VV(T), VMUL, v_out, v_coeffs, v_sample);
        vbx_dma_to_host(output + done, v_out, n * size);

        prefetcher_rotate(&v_in);
        done += n;
    }

#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    vbx_sp_pop();
    return VBW_SUCCESS;
}

#endif /* VBW_VEC_FIR_INSTANCE */

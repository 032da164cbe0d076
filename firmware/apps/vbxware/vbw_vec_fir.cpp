/*
 * vbw_vec_fir.cpp - vbxware: 1-D FIR filter on the MXP, for the six element types (a C++
 * template, as the SDK's vbw_vec_fir_ext; written with the vbxx layer).
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
 * The six extern "C" wrappers vbw_vec_fir_ext_<type> instantiate one template. (The SDK's
 * file also has a transpose variant, vbw_vec_fir_transpose_ext_<type>, which its benchmark
 * never calls; it is not ported.)
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_vec_fir_no_routine_sync.cpp,
 * which compiles its own copy of this file) leaves out the final vbx_sync().
 */
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
namespace {
struct rotating_prefetcher {
    vbx_void_t *slot[2];
    int length[2];    /* bytes fetched into each slot */
    int fetch_bytes;  /* length of the next full window */
    int step;         /* host bytes from one window's start to the next */
    const char *next; /* host address of the next window */
    const char *end;  /* end of the host array */
    int fill;         /* slot the next fetch writes */
    int current;      /* slot of the window being processed */

    /* Allocates the two slots of slot_bytes each (issues nothing). */
    int init(int slot_bytes, const void *start, const void *array_end, int window_step)
    {
        slot[0] = vbx_sp_malloc(slot_bytes);
        slot[1] = vbx_sp_malloc(slot_bytes);
        length[0] = length[1] = 0;
        fetch_bytes = slot_bytes;
        step = window_step;
        next = (const char *)start;
        end = (const char *)array_end;
        fill = 0;
        current = 0;
        return slot[0] && slot[1] ? VBW_SUCCESS : VBW_ERROR_SP_ALLOC_FAILED;
    }

    /* Queues the DMA-in of the next window, if the array has one, into the next slot. */
    void fetch()
    {
        if (next >= end)
            return;
        if (fetch_bytes > end - next)
            fetch_bytes = end - next; /* 2018: shorter for good */
        vbx_dma_to_vector(slot[fill], next, fetch_bytes);
        length[fill] = fetch_bytes;
        next += step;
        fill ^= 1;
    }

    /* The window being processed, and its length in bytes. */
    vbx_void_t *window(int *bytes) const
    {
        *bytes = length[current];
        return slot[current];
    }

    /* Done with the current window (once its work is queued): the next one becomes current. */
    void rotate() { current ^= 1; }
};
} // namespace

template <typename Elem>
static int vbw_vec_fir_ext(Elem *output, Elem *input, Elem *coeffs, const int sample_size,
                           const int num_taps)
{
    const int size = sizeof(Elem);
    const int num_out = sample_size - num_taps;

    vbx_sp_push();
    const int chunk = vbx_sp_getfree() / 8 / size; /* samples per fetch */
    Elem *v_coeffs = (Elem *)vbx_sp_malloc(num_taps * size);
    if (v_coeffs == NULL || chunk <= num_taps) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_dma_to_vector(v_coeffs, coeffs, num_taps * size);

    rotating_prefetcher v_in;
    int status = v_in.init(chunk * size, input, input + sample_size, (chunk - num_taps) * size);
    Elem *v_out = (Elem *)vbx_sp_malloc(chunk * size);
    if (status != VBW_SUCCESS || v_out == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    v_in.fetch();
    for (int done = 0; done < num_out;) {
        int bytes;
        Elem *v_sample = (Elem *)v_in.window(&bytes);
        const int rows = bytes / size;
        const int n = rows - num_taps < num_out - done ? rows - num_taps : num_out - done;
        if (done + n < num_out)
            v_in.fetch(); /* the next chunk, while this one is filtered */

        vbx_set_vl(num_taps, rows);
        vbx_set_2D(size, 0, size);
        vbxx_acc(VMUL, v_out, v_coeffs, v_sample);
        vbx_dma_to_host(output + done, v_out, n * size);

        v_in.rotate();
        done += n;
    }

#ifndef BUG_NO_ROUTINE_SYNC
    vbx_sync();
#endif
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* The C entry points, one per element type (vbx_types.h). */
#define VBW_VEC_FIR_EXT_C_(suffix, Elem_) \
    extern "C" int vbw_vec_fir_ext_##suffix(Elem_ *output, Elem_ *input, Elem_ *coeffs, const int sample_size, const int num_taps) \
    { \
        return vbw_vec_fir_ext<Elem_>(output, input, coeffs, sample_size, num_taps); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_VEC_FIR_EXT_C_)
#undef VBW_VEC_FIR_EXT_C_

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
 * The six extern "C" wrappers vbw_vec_fir_ext_<type> instantiate one template.
 *
 * The transpose variant, vbw_vec_fir_transpose_ext_<type> (the SDK's file has one too, which its
 * benchmark never calls; this is our own code with the SDK's signature and the instruction
 * shapes of mxp-spec.md section 2.9.5), computes the filter in the transpose form: per tap
 * i, an SV VMUL of the input shifted by i by the scalar coeffs[i], added to the outputs by a
 * VV VADD. Unlike vbw_vec_fir_ext, its arithmetic wraps in the element type (see below).
 *
 * The injected-bug switch BUG_NO_ROUTINE_SYNC (apps/bugs/vbw_vec_fir_no_routine_sync.cpp,
 * which compiles its own copy of this file) leaves out vbw_vec_fir_ext's final vbx_sync() (the
 * transpose variant keeps its own).
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

/*
 * The transpose form (element type T): out[j] = sum over i < num_taps of in[j + i] * coeffs[i],
 * for j < sample_size - num_taps (the outputs vbw_vec_fir_ext writes).
 *
 * Arithmetic: every product and every partial sum wraps in T (VMUL keeps the low bits of the
 * product, VADD adds modulo 2^bits of T), so out[j] is the exact sum modulo 2^bits of T. This
 * differs from vbw_vec_fir_ext, which truncates each product to T but sums them in the 40-bit
 * accumulator and saturates the sum to T: the two agree only when no partial sum leaves T's
 * range. (The low bits of a product or sum do not depend on the operands' signs, so signed
 * and unsigned T give the same bits for the same bit patterns.)
 *
 * Coefficients: coeffs is a host array, as for vbw_vec_fir_ext, but here the CPU reads it (each
 * coeffs[i] becomes the scalar operand of an SV VMUL with the scalar's sign = T's sign, A
 * sized as T: section 2.9.5); nothing DMAs it. So it may be any memory the CPU can read
 * coherently (cached or shared); vbw_vec_fir_ext instead DMAs it, and needs it in memory
 * (shared, or flushed). input is DMA'd in and output DMA'd out, as for vbw_vec_fir_ext: they
 * must be coherent with memory for the DMA (shared buffers, or flushed / invalidated).
 *
 * Scratchpad (between vbx_sp_push and vbx_sp_pop): an input chunk of c + num_taps - 1 samples,
 * and c outputs plus c products. c is the largest count for which the three fit in the free
 * scratchpad allowing for each allocation's rounding to the granule (scratchpad_alignment_bytes),
 * capped at the number of outputs. The sample is processed in chunks of c outputs; consecutive
 * input chunks overlap by num_taps - 1 samples (chunk k reads input[k*c .. k*c + n + num_taps - 2]
 * for its n <= c outputs), so the routine reads input[0 .. sample_size - 2]. The buffers are
 * reused from chunk to chunk without a sync: the DMA-in of the next chunk waits for the VMULs
 * still reading the input buffer, and its first VMUL for the DMA-out still reading the output
 * buffer (the hardware interlocks of section 1.4).
 *
 * Ends with vbx_sync() (the outputs are in host memory on return), then releases the
 * scratchpad. Leaves VL set to the last chunk's output count (1-D). Returns VBW_SUCCESS (also
 * when there are no outputs), or VBW_ERROR_SP_ALLOC_FAILED, having issued nothing, when
 * num_taps < 1 (as vbw_vec_fir_ext, which cannot allocate 0 coefficients) or when not even
 * one output's buffers fit.
 */
template <typename Elem>
static int vbw_vec_fir_transpose_ext(Elem *output, Elem *input, Elem *coeffs, const int sample_size,
                                     const int num_taps)
{
    const int size = sizeof(Elem);
    const int num_out = sample_size - num_taps;
    if (num_taps < 1)
        return VBW_ERROR_SP_ALLOC_FAILED;

    vbx_sp_push();
    /* Each of the three allocations wastes less than a granule in rounding. */
    const int granule = VBX_GET_THIS_MXP()->scratchpad_alignment_bytes;
    int chunk = ((vbx_sp_getfree() - 3 * granule) / size - (num_taps - 1)) / 3;
    if (chunk > num_out)
        chunk = num_out;
    if (chunk < 1)
        chunk = 1; /* no outputs, or too little room: the allocation below decides */
    Elem *v_in = (Elem *)vbx_sp_malloc((chunk + num_taps - 1) * size);
    Elem *v_out = (Elem *)vbx_sp_malloc(chunk * size);
    Elem *v_prod = (Elem *)vbx_sp_malloc(chunk * size);
    if (v_in == NULL || v_out == NULL || v_prod == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }

    for (int done = 0; done < num_out;) {
        const int n = chunk < num_out - done ? chunk : num_out - done;
        vbx_dma_to_vector(v_in, input + done, (n + num_taps - 1) * size);
        vbx_set_vl(n);
        vbxx(VMUL, v_out, coeffs[0], v_in);
        for (int i = 1; i < num_taps; i++) {
            vbxx(VMUL, v_prod, coeffs[i], v_in + i);
            vbxx(VADD, v_out, v_out, v_prod);
        }
        vbx_dma_to_host(output + done, v_out, n * size);
        done += n;
    }

    vbx_sync();
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* The C entry points of the transpose variant, one per element type (vbx_types.h). */
#define VBW_VEC_FIR_TRANSPOSE_EXT_C_(suffix, Elem_) \
    extern "C" int vbw_vec_fir_transpose_ext_##suffix(Elem_ *output, Elem_ *input, Elem_ *coeffs, const int sample_size, const int num_taps) \
    { \
        return vbw_vec_fir_transpose_ext<Elem_>(output, input, coeffs, sample_size, num_taps); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_VEC_FIR_TRANSPOSE_EXT_C_)
#undef VBW_VEC_FIR_TRANSPOSE_EXT_C_

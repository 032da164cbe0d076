/*
 * vec_fir_transpose.cpp - vbxware's transpose FIR, vbw_vec_fir_transpose_ext_<type>
 * (apps/vbxware/vbw_vec_fir.cpp), for the six element types: 40 samples, 5 taps, so 35
 * outputs (j < sample_size - num_taps), each compared with a scalar reference computed here
 * with the routine's wrap rules (every product and partial sum modulo 2^bits of the type).
 *
 * Data: sample k has the bits k * 0x9E3779B9 + 0x7F4A7C15 and the coefficients the bits
 * 0xFFFFFFFD 0x7FFFFFFF 1 0x80000080 0x12345679, each truncated to the type: negative and
 * positive values for the signed types (byte coefficients -3 -1 1 -128 121), large ones for
 * the unsigned types, and sums that leave the type's range, so the outputs wrap (a 40-bit
 * accumulate with saturation, as vbw_vec_fir_ext computes, would give different results). The
 * reference multiplies and adds in uint32_t and truncates to the type: the low bits of a
 * two's-complement product or sum do not depend on the operands' signs, so that is the
 * wrapped result for signed and unsigned types alike.
 * The output buffer is prefilled with 0xA5 bytes; outputs 35..39 must keep them (the routine
 * writes no more than its outputs), and a change there counts as a mismatch too.
 *
 * Three runs per type:
 *   1. the whole scratchpad free: one chunk of 35 outputs;
 *   2. 96 bytes free (the rest allocated before the call): with the default 16-byte granule
 *      the routine's sizing gives chunks of 14 outputs for bytes (3 chunks), 6 for halves (6)
 *      and 2 for words (18), input chunks overlapping by 4 samples; same outputs;
 *   3. 32 bytes free: too little for even one output (three buffers of at least 16 bytes),
 *      so every call must return VBW_ERROR_SP_ALLOC_FAILED (-1) and leave the output alone.
 * Host buffers: samples and outputs are shared (uncached) buffers, as the DMA needs; the
 * coefficients and the reference are cached (malloc): the routine reads the coefficients
 * with the CPU. All are allocated once, word-sized, and reused by every type.
 *
 * mxp-tests are linked with the SDK library only (not libvbxware.a), so this program compiles
 * its own copy of vbxware/vbw_vec_fir.cpp, as the C++ programs of apps/bugs do.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include "vbw_exit_codes.h"
#include "../apps/vbxware/vbw_vec_fir.cpp"

#define SAMPLES 40
#define TAPS 5
#define OUTS (SAMPLES - TAPS)
#define SENTINEL 0xA5
#define CHUNKED_FREE 96 /* scratchpad bytes left free in run 2 */
#define TOO_SMALL_FREE 32 /* and in run 3 */

static const uint32_t coeff_bits[TAPS] = {0xFFFFFFFDu, 0x7FFFFFFFu, 1u, 0x80000080u, 0x12345679u};

static uint32_t sample_bits(int k)
{
    return (uint32_t)k * 0x9E3779B9u + 0x7F4A7C15u;
}

/* Word-sized host buffers, reused by every type. */
static void *g_in, *g_out;       /* shared: DMA'd */
static void *g_coeffs, *g_ref;   /* cached: CPU only */

/* Fills the samples and coefficients of type T and computes the reference outputs. */
template <typename T> static void prepare(void)
{
    T *in = (T *)g_in, *coeffs = (T *)g_coeffs, *ref = (T *)g_ref;
    for (int k = 0; k < SAMPLES; k++)
        in[k] = (T)sample_bits(k);
    for (int i = 0; i < TAPS; i++)
        coeffs[i] = (T)coeff_bits[i];
    for (int j = 0; j < OUTS; j++) {
        uint32_t sum = 0;
        for (int i = 0; i < TAPS; i++)
            sum += (uint32_t)(T)sample_bits(j + i) * (uint32_t)(T)coeff_bits[i];
        ref[j] = (T)sum;
    }
}

/* Prefills the output with SENTINEL bytes. */
static void prefill_output(void)
{
    uint8_t *out = (uint8_t *)g_out;
    for (int b = 0; b < SAMPLES * 4; b++)
        out[b] = SENTINEL;
}

/* Bytes of the output's elements from..SAMPLES-1 that lost their SENTINEL (as elements). */
template <typename T> static int changed_from(int from)
{
    const uint8_t *out = (const uint8_t *)g_out;
    int changed = 0;
    for (int j = from; j < SAMPLES; j++) {
        bool same = true;
        for (unsigned b = 0; b < sizeof(T); b++)
            same = same && out[j * sizeof(T) + b] == SENTINEL;
        changed += !same;
    }
    return changed;
}

/* Runs the routine of type T on the prepared data; prints "<type>: 35 outputs, M mismatches".
 * Returns the mismatches (plus one if the routine did not succeed). */
template <typename T>
static int run(const char *name, int (*fir)(T *, T *, T *, int, int))
{
    prepare<T>();
    prefill_output();
    int status = fir((T *)g_out, (T *)g_in, (T *)g_coeffs, SAMPLES, TAPS);
    const T *out = (const T *)g_out, *ref = (const T *)g_ref;
    int mismatches = 0;
    for (int j = 0; j < OUTS; j++)
        mismatches += out[j] != ref[j];
    mismatches += changed_from<T>(OUTS);
    if (status != VBW_SUCCESS)
        printf("%s: returned %d\n", name, status);
    printf("%s: %d outputs, %d mismatches\n", name, OUTS, mismatches);
    return mismatches + (status != VBW_SUCCESS);
}

/* Runs the routine of type T with too little scratchpad: 1 if it returns the allocation
 * error and leaves the output untouched, else 0 (and says why). */
template <typename T>
static int run_too_small(const char *name, int (*fir)(T *, T *, T *, int, int))
{
    prepare<T>();
    prefill_output();
    int status = fir((T *)g_out, (T *)g_in, (T *)g_coeffs, SAMPLES, TAPS);
    int changed = changed_from<T>(0);
    if (status == VBW_ERROR_SP_ALLOC_FAILED && changed == 0)
        return 1;
    printf("%s: returned %d, %d elements written\n", name, status, changed);
    return 0;
}

/* Allocates all of the free scratchpad but `bytes` (after a vbx_sp_push). 0 when exactly
 * `bytes` are left free. */
static int leave_free(int bytes)
{
    vbx_sp_push();
    const int fill = vbx_sp_getfree() - bytes;
    if (fill > 0 && vbx_sp_malloc(fill) == NULL)
        return 1;
    if (vbx_sp_getfree() != bytes) {
        printf("could not leave %d bytes of scratchpad free (%d)\n", bytes, vbx_sp_getfree());
        return 1;
    }
    return 0;
}

#define RUN_(suffix, Elem_) errors += run<Elem_>(#suffix, vbw_vec_fir_transpose_ext_##suffix);
#define RUN_TOO_SMALL_(suffix, Elem_) ok += run_too_small<Elem_>(#suffix, vbw_vec_fir_transpose_ext_##suffix);

int main(void)
{
    vbx_test_init();
    int errors = 0;

    g_in = vbx_shared_malloc(SAMPLES * 4);
    g_out = vbx_shared_malloc(SAMPLES * 4);
    g_coeffs = malloc(TAPS * 4);
    g_ref = malloc(OUTS * 4);
    if (!g_in || !g_out || !g_coeffs || !g_ref) {
        printf("allocation failed\n");
        return 1;
    }

    printf("FIR transpose form: %d samples, %d taps\n", SAMPLES, TAPS);

    printf("\nwhole scratchpad free:\n");
    VBX_FOR_EACH_ELEMENT_TYPE_(RUN_)

    printf("\n%d bytes of scratchpad free (several chunks):\n", CHUNKED_FREE);
    errors += leave_free(CHUNKED_FREE);
    VBX_FOR_EACH_ELEMENT_TYPE_(RUN_)
    vbx_sp_pop();

    printf("\n%d bytes of scratchpad free (too little):\n", TOO_SMALL_FREE);
    errors += leave_free(TOO_SMALL_FREE);
    int ok = 0;
    VBX_FOR_EACH_ELEMENT_TYPE_(RUN_TOO_SMALL_)
    vbx_sp_pop();
    printf("%d of 6 types return %d and leave the output untouched\n", ok, VBW_ERROR_SP_ALLOC_FAILED);
    errors += 6 - ok;

    vbx_shared_free(g_in);
    vbx_shared_free(g_out);
    free(g_coeffs);
    free(g_ref);

    VBX_TEST_END(errors);
    return errors;
}

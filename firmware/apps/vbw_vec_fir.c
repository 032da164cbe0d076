/*
 * vbw_vec_fir.c - port of the SDK benchmark vbw_vec_fir_t (2018.08): a 16-tap FIR filter of
 * 4096 samples for each element type (int8, uint8, int16, uint16, int32, uint32, in that
 * order), on the CPU (scalar_vec_fir_<type>) and on the MXP (vbxware vbw_vec_fir_ext_<type>),
 * compared over the 4080 outputs the vector routine writes:
 * out[j] = saturate(sum over i < 16 of trunc(x[j + i] * c[i])), products truncated to the
 * element type, summed in a 40-bit accumulator, the sum saturated to the element type.
 * Samples: the 8-bit LFSR of test_init_array seeded 0xFF; coefficients: the same seeded 1.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.11), per element type: allocate three
 * cached buffers (malloc: scalar_sample, scalar_coeffs, scalar_out) and then three shared ones
 * (vbx_shared_malloc: sample, coeffs, vector_out) from the same heap; zero scalar_out, then
 * vector_out; generate the samples into scalar_sample and copy 4096 of them into sample, the
 * same for the coefficients; zero the 16 padding samples of both sample arrays; nothing is
 * flushed, so scalar_out's last line (zeroed before sample was written; the scalar filter writes
 * outputs 0..4079 only) may share a line with sample's head, which the routine DMAs in. The routine
 * ends with the only vbx_sync(). Then the three cached buffers and the three shared ones are
 * freed; the next type allocates afresh. With picolibc's first-fit malloc every type's
 * buffers start where the previous type's did, so a wider type's cached buffers cover the
 * previous type's vector_out (uint8 -> int16, uint16 -> int32). Those lines were last flushed
 * when vector_out was allocated, before its DMA-out, and nothing invalidates them after the
 * sync, so the race checker reports their cache fills against that DMA-out even with 16-byte
 * lines: a stale-line race of the original (memory the DMA wrote is reused as cached memory).
 *
 * The six sub-tests come from one body: this file includes itself once per type, with
 * VBW_VEC_FIR_SUBTEST defined and VBX_TEMPLATE_T set for vbw_template_t.h (mxp-spec.md
 * section 6.5), which names the functions <name>_<type>.
 *
 * Injected-bug switches (apps/bugs/): BUG_CACHED_SAMPLE (sample from malloc: its cached copy
 * races with the DMA-in that reads it) and BUG_NO_ROUTINE_SYNC (in vbxware/vbw_vec_fir.cpp: no
 * vbx_sync() at the end of the routine, so printing, verifying and freeing vector_out race
 * with its DMA-out).
 *
 * expect-exit: 0
 * qemu: skip (needs the MXP)
 * output: timing-dependent
 * cache: max-line 32 (with 64-byte lines the original's own race -- a cached buffer's tail line
 *     written back over the shared sample's head -- can corrupt the output: README, "SDK programs")
 */
#ifndef VBW_VEC_FIR_SUBTEST

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include "vbx_copyright.h"
#include "vbw_exit_codes.h"
#include "vbw_vec_fir.h"

VBXCOPYRIGHT(test_vec_fir)

#define SAMPLE_SIZE 4096
#define NUM_TAPS 16
#define SAMPLE_SEED 0xFF
#define COEFF_SEED 1

#define VBW_STR2_(x) #x
#define VBW_STR_(x) VBW_STR2_(x)

/* The MXP accumulator keeps 40 bits: the sum wrapped to a signed 40-bit value. */
static int64_t wrap40(int64_t sum)
{
    return (int64_t)((uint64_t)sum << 24) >> 24;
}

/* What the accumulator writes to an element of `bytes` bytes: a signed element saturates to
 * its minimum or maximum, an unsigned one to all ones when any bit above it (or the sign) is
 * set. */
static int64_t saturate(int64_t sum, int bytes, int is_signed)
{
    const int bits = 8 * bytes;
    if (is_signed) {
        const int64_t max = ((int64_t)1 << (bits - 1)) - 1;
        return sum > max ? max : sum < -max - 1 ? -max - 1 : sum;
    }
    const int64_t max = ((int64_t)1 << bits) - 1;
    return sum < 0 || sum > max ? max : sum;
}

#define VBW_VEC_FIR_SUBTEST
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
#undef VBW_VEC_FIR_SUBTEST

int main(void)
{
    vbx_test_init();
    vbx_mxp_print_params();
    printf("\nFIR filter test: %d samples, %d taps, six element types\n", SAMPLE_SIZE, NUM_TAPS);

    int errors = 0;
    errors += test_vec_fir_byte();
    errors += test_vec_fir_ubyte();
    errors += test_vec_fir_half();
    errors += test_vec_fir_uhalf();
    errors += test_vec_fir_word();
    errors += test_vec_fir_uword();

    VBX_TEST_END(errors);
    return 0;
}

#else /* VBW_VEC_FIR_SUBTEST: the sub-test for the element type VBX_TEMPLATE_T */

#include "vbw_template_t.h"

/* The scalar reference: every output whose taps lie inside the samples (one more than the
 * vector routine writes). Products truncated to the element type, as the MXP computes them. */
static void VBX_T(scalar_vec_fir)(vbx_mm_t *output, vbx_mm_t *input, vbx_mm_t *coeffs,
                                  int sample_size, int num_taps)
{
    const int is_signed = VBX_TEMPLATE_T < VBX_UBYTESIZE_DEF;
    for (int j = 0; j <= sample_size - num_taps; j++) {
        int64_t sum = 0;
        for (int i = 0; i < num_taps; i++)
            sum += (vbx_mm_t)((uint32_t)input[j + i] * (uint32_t)coeffs[i]);
        output[j] = (vbx_mm_t)saturate(wrap40(sum), sizeof(vbx_mm_t), is_signed);
    }
}

static double VBX_T(test_scalar)(vbx_mm_t *scalar_out, vbx_mm_t *scalar_sample,
                                 vbx_mm_t *scalar_coeffs)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    VBX_T(scalar_vec_fir)(scalar_out, scalar_sample, scalar_coeffs, SAMPLE_SIZE, NUM_TAPS);
    time_stop = vbx_timestamp();

    printf("\nScalar output:\n");
    VBX_T(test_print_array)(scalar_out, MIN(SAMPLE_SIZE - NUM_TAPS, MAX_PRINT_LENGTH));
    return vbx_print_scalar_time(time_start, time_stop);
}

static void VBX_T(test_vector)(vbx_mm_t *vector_out, vbx_mm_t *sample, vbx_mm_t *coeffs,
                               double scalar_time)
{
    vbx_timestamp_t time_start, time_stop;

    vbx_timestamp_start();
    time_start = vbx_timestamp();
    /* The routine ends with the vbx_sync() that completes vector_out. */
    int status = VBX_T(vbw_vec_fir_ext)(vector_out, sample, coeffs, SAMPLE_SIZE, NUM_TAPS);
    time_stop = vbx_timestamp();

    if (status != VBW_SUCCESS)
        printf("\n" VBW_STR_(VBX_T(vbw_vec_fir_ext)) " failed: %d\n", status);
    printf("\nVector output:\n");
    VBX_T(test_print_array)(vector_out, MIN(SAMPLE_SIZE - NUM_TAPS, MAX_PRINT_LENGTH));
    vbx_print_vector_time(time_start, time_stop, scalar_time);
}

/* Allocates, fills, filters both ways, compares and frees the buffers of one element type.
 * Returns the number of mismatching outputs. */
static int VBX_T(test_vec_fir)(void)
{
    const int padded = SAMPLE_SIZE + NUM_TAPS;

    printf("\nElement type: " VBW_STR_(BYTEHALFWORD) "\n");

    vbx_mm_t *scalar_sample = (vbx_mm_t *)malloc(padded * sizeof(vbx_mm_t));
    vbx_mm_t *scalar_coeffs = (vbx_mm_t *)malloc(NUM_TAPS * sizeof(vbx_mm_t));
    vbx_mm_t *scalar_out = (vbx_mm_t *)malloc(SAMPLE_SIZE * sizeof(vbx_mm_t));
#ifdef BUG_CACHED_SAMPLE
    vbx_mm_t *sample = (vbx_mm_t *)malloc(padded * sizeof(vbx_mm_t)); /* cached, and never flushed */
#else
    vbx_mm_t *sample = (vbx_mm_t *)vbx_shared_malloc(padded * sizeof(vbx_mm_t));
#endif
    vbx_mm_t *coeffs = (vbx_mm_t *)vbx_shared_malloc(NUM_TAPS * sizeof(vbx_mm_t));
    vbx_mm_t *vector_out = (vbx_mm_t *)vbx_shared_malloc(SAMPLE_SIZE * sizeof(vbx_mm_t));

    if (!scalar_sample || !scalar_coeffs || !scalar_out || !sample || !coeffs || !vector_out) {
        printf("\nAllocation failed\n");
        return 1;
    }

    VBX_T(test_zero_array)(scalar_out, SAMPLE_SIZE);
    VBX_T(test_zero_array)(vector_out, SAMPLE_SIZE);
    VBX_T(test_init_array)(scalar_sample, SAMPLE_SIZE, SAMPLE_SEED);
    VBX_T(test_copy_array)(sample, scalar_sample, SAMPLE_SIZE);
    VBX_T(test_init_array)(scalar_coeffs, NUM_TAPS, COEFF_SEED);
    VBX_T(test_copy_array)(coeffs, scalar_coeffs, NUM_TAPS);
    VBX_T(test_zero_array)(scalar_sample + SAMPLE_SIZE, NUM_TAPS);
    VBX_T(test_zero_array)(sample + SAMPLE_SIZE, NUM_TAPS);

    printf("\nSamples:\n");
    VBX_T(test_print_array)(scalar_sample, MIN(SAMPLE_SIZE, MAX_PRINT_LENGTH));
    printf("\nCoefficients:\n");
    VBX_T(test_print_array)(scalar_coeffs, MIN(NUM_TAPS, MAX_PRINT_LENGTH));

    double scalar_time = VBX_T(test_scalar)(scalar_out, scalar_sample, scalar_coeffs);
    VBX_T(test_vector)(vector_out, sample, coeffs, scalar_time);

    int errors = VBX_T(test_verify_array)(scalar_out, vector_out, SAMPLE_SIZE - NUM_TAPS);
    printf("\nElement type " VBW_STR_(BYTEHALFWORD) ": %d errors\n", errors);
    fflush(stdout);

    free(scalar_sample);
    free(scalar_coeffs);
    free(scalar_out);
#ifdef BUG_CACHED_SAMPLE
    free(sample);
#else
    vbx_shared_free(sample);
#endif
    vbx_shared_free(coeffs);
    vbx_shared_free(vector_out);
    return errors;
}

#endif /* VBW_VEC_FIR_SUBTEST */

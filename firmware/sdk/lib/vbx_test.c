/*
 * vbx_test.c - the test harness (mxp-spec.md section 6): data generators, printing,
 * verification, engineering notation, parameter and timing reports.
 */
#include <math.h>
#include <string.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

int lfsr_32(int p)
{
    uint32_t u = (uint32_t)p;
    uint32_t bit = ((u >> 31) ^ (u >> 21) ^ (u >> 1) ^ u) & 1u;
    return (int)((u << 1) | bit);
}

/* The 8-bit recurrence of test_init_array: bits 7, 5, 4, 3 of p feed bit 0. */
static uint32_t next8(uint32_t p)
{
    uint32_t bit = ((p >> 7) ^ (p >> 5) ^ (p >> 4) ^ (p >> 3)) & 1u;
    return bit | ((p << 1) & 0xFEu);
}

/*
 * One set of harness functions per element type.
 *   inc_extra  0 for byte, 1 for the others (the SDK's seed += 1 + inc quirk)
 *   mask       test_init_matrix mask
 *   pfmt/pcast decimal print format and the cast its argument gets
 *   hfmt       hex print format (argument cast to unsigned int)
 *   vfmt/vcast value format in mismatch reports
 */
#define VBX_TEST_DEFINE_(suffix, type, utype, inc_extra, mask, pfmt, pcast, hfmt, vfmt, vcast)         \
    void test_zero_array_##suffix(type *d, int n)                                                     \
    {                                                                                                   \
        for (int i = 0; i < n; i++)                                                                     \
            d[i] = 0;                                                                                   \
    }                                                                                                   \
                                                                                                        \
    void test_copy_array_##suffix(type *out, type *in, int n)                                         \
    {                                                                                                   \
        for (int i = 0; i < n; i++)                                                                     \
            out[i] = in[i];                                                                             \
    }                                                                                                   \
                                                                                                        \
    void test_init_array_##suffix(type *d, int n, int seed)                                           \
    {                                                                                                   \
        if (n <= 0)                                                                                     \
            return;                                                                                     \
        d[0] = (type)seed;                                                                              \
        for (int i = 1; i < n; i++)                                                                     \
            d[i] = (type)next8((uint32_t)d[i - 1]);                                                     \
    }                                                                                                   \
                                                                                                        \
    void test_inc_array_##suffix(type *d, int n, int seed, int inc)                                   \
    {                                                                                                   \
        uint32_t s = (uint32_t)seed;                                                                    \
        for (int i = 0; i < n; i++) {                                                                   \
            d[i] = (type)(utype)s;                                                                      \
            s += (uint32_t)inc + (inc_extra);                                                           \
        }                                                                                               \
    }                                                                                                   \
                                                                                                        \
    void test_init_matrix_##suffix(type *d, int height, int width, int seed)                          \
    {                                                                                                   \
        int s = seed;                                                                                   \
        for (int i = 0; i < height * width; i++) {                                                      \
            d[i] = (type)(utype)((uint32_t)s & (mask));                                                 \
            s = lfsr_32(s);                                                                             \
        }                                                                                               \
    }                                                                                                   \
                                                                                                        \
    void test_print_array_##suffix(type *d, int n)                                                      \
    {                                                                                                   \
        for (int i = 0; i < n; i++)                                                                     \
            printf(pfmt, (pcast)d[i]);                                                                  \
        printf("\n");                                                                                   \
    }                                                                                                   \
                                                                                                        \
    void test_print_matrix_##suffix(type *d, int rows, int cols, int pitch)                             \
    {                                                                                                   \
        for (int r = 0; r < rows; r++)                                                                  \
            test_print_array_##suffix(&d[r * pitch], cols);                                             \
        printf("\n");                                                                                   \
    }                                                                                                   \
                                                                                                        \
    void test_print_hex_array_##suffix(type *d, int n)                                                  \
    {                                                                                                   \
        for (int i = 0; i < n; i++)                                                                     \
            printf(hfmt, (unsigned)(utype)d[i]);                                                        \
        printf("\n");                                                                                   \
    }                                                                                                   \
                                                                                                        \
    void test_print_hex_matrix_##suffix(type *d, int rows, int cols, int pitch)                         \
    {                                                                                                   \
        for (int r = 0; r < rows; r++)                                                                  \
            test_print_hex_array_##suffix(&d[r * pitch], cols);                                         \
        printf("\n");                                                                                   \
    }                                                                                                   \
                                                                                                        \
    int test_verify_array_##suffix(type *scalar, type *vector, int n)                                 \
    {                                                                                                   \
        int errors = 0;                                                                                 \
        for (int i = 0; i < n; i++) {                                                                   \
            if (vector[i] != scalar[i]) {                                                               \
                if (errors == 0)                                                                        \
                    report_mismatch_(i, vfmt, (vcast)scalar[i], (vcast)vector[i]);                      \
                errors++;                                                                               \
            }                                                                                           \
        }                                                                                               \
        return errors;                                                                                  \
    }                                                                                                   \
                                                                                                        \
    int test_range_array_##suffix(type *scalar, type *vector, int n, int range)                       \
    {                                                                                                   \
        int errors = 0;                                                                                 \
        for (int i = 0; i < n; i++) {                                                                   \
            if (vector[i] + range < scalar[i] || vector[i] - range > scalar[i]) {                       \
                if (errors == 0)                                                                        \
                    report_mismatch_(i, vfmt, (vcast)scalar[i], (vcast)vector[i]);                      \
                errors++;                                                                               \
            }                                                                                           \
        }                                                                                               \
        return errors;                                                                                  \
    }

/* The first mismatch of a verify/range check, in the SDK's form ("Fail at sample N.", then the
 * scalar and the vector value, formatted as the type's decimal print); the SDK version of
 * section 6.3 goes on counting, and says on the vector line that it prints no more. */
static void report_mismatch_(int i, const char *fmt, long long scalar, long long vector)
{
    printf("\nFail at sample %d.\nScalar: ", i);
    printf(fmt, scalar);
    printf("\nVector: ");
    printf(fmt, vector);
    printf(" (further mismatches are not printed)\n");
}

VBX_TEST_DEFINE_(byte, int8_t, uint8_t, 0u, 0xFFu, "%d\t", int, "%02X ", "%lld", long long)
VBX_TEST_DEFINE_(half, int16_t, uint16_t, 1u, 0xFFFFu, "%d\t ", int, "%04X ", "%lld", long long)
VBX_TEST_DEFINE_(word, int32_t, uint32_t, 1u, 0xFFFFFFu, "%d\t", int, "%08X ", "%lld", long long)
VBX_TEST_DEFINE_(ubyte, uint8_t, uint8_t, 1u, 0xFFu, "%u\t", unsigned, "%02X ", "%lld", long long)
VBX_TEST_DEFINE_(uhalf, uint16_t, uint16_t, 1u, 0xFFFFu, "%u\t", unsigned, "%04X ", "%lld", long long)
VBX_TEST_DEFINE_(uword, uint32_t, uint32_t, 1u, 0xFFFFFFu, "%u\t", unsigned, "%08X ", "%lld", long long)

char *vbx_eng(double v, int digits)
{
    static char buf[64];
    char *p = buf;
    if (v == 0.0) {
        strcpy(buf, "0.0");
        return buf;
    }
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    int e = (int)log10(v);
    if (e > 0)
        e -= e % 3;
    else
        e = ((-e + 3) / 3) * -3;
    double m = v * pow(10.0, (double)-e);
    if (m >= 1000.0) {
        m /= 1000.0;
        e += 3;
    } else if (m >= 100.0) {
        digits -= 2;
    } else if (m >= 10.0) {
        digits -= 1;
    }
    /* As the SDK: with fewer digits than the integer part has, the precision is negative, which
     * printf takes as no precision at all (six decimals): vbx_eng(123.0, 2) is "123.000000". */
    int decimals = digits - 1;
    if (e == 0)
        snprintf(p, sizeof buf - 1, "%.*f", decimals, m);
    else
        snprintf(p, sizeof buf - 1, "%.*fe%d", decimals, m, e);
    return buf;
}

void vbx_mxp_print_params(void)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    printf("MXP Parameters:\n");
    printf("vector_lanes = %d\n", mxp->vector_lanes);
    printf("core_freq = %s\n", vbx_eng(mxp->core_freq, 4));
    printf("scratchpad_size = %d\n", mxp->scratchpad_size);
    printf("dma data width in bytes = %d\n", mxp->dma_alignment_bytes);
    printf("fxp_word_frac_bits = %d\n", mxp->fxp_word_frac_bits);
    printf("fxp_half_frac_bits = %d\n", mxp->fxp_half_frac_bits);
    printf("fxp_byte_frac_bits = %d\n", mxp->fxp_byte_frac_bits);
}

static double print_time(const char *label, vbx_timestamp_t start, vbx_timestamp_t stop, double scalar_seconds,
                         double divisor, const char *divisor_name)
{
    if (stop < start) {
        printf("Error: %s stop time (%llu) is less than start time (%llu)!\n", label, (unsigned long long)stop,
               (unsigned long long)start);
        printf("Skipping metrics computation.\n");
        return 0.0;
    }
    vbx_timestamp_t ticks = stop - start;
    vbx_timestamp_t freq = vbx_timestamp_freq();
    double seconds = freq ? (double)ticks / (double)freq : 0.0;
    vbx_timestamp_t cycles = vbx_mxp_cycles(ticks);
    printf("\n");
    printf("%s time in seconds: %s\n", label, vbx_eng(seconds, 4));
    printf("%s time in cycles: %llu\n", label, (unsigned long long)cycles);
    if (divisor > 0)
        printf("%s time in cycles per %s: %s\n", label, divisor_name, vbx_eng((double)cycles / divisor, 4));
    /* Unlike the SDK, no speedup for a zero-length vector time: it would be infinite, which
     * vbx_eng cannot format (log10 of infinity converted to int). */
    if (scalar_seconds > 0 && seconds > 0)
        printf("%s speedup: %s\n", label, vbx_eng(scalar_seconds / seconds, 4));
    return seconds;
}

double vbx_print_scalar_time(vbx_timestamp_t start, vbx_timestamp_t stop)
{
    return print_time("Scalar", start, stop, 0.0, 0.0, "");
}

double vbx_print_vector_time(vbx_timestamp_t start, vbx_timestamp_t stop, double scalar_seconds)
{
    return print_time("Vector", start, stop, scalar_seconds, 0.0, "");
}

double vbx_print_scalar_time_per(vbx_timestamp_t start, vbx_timestamp_t stop, double divisor,
                                 const char *divisor_name)
{
    return print_time("Scalar", start, stop, 0.0, divisor, divisor_name);
}

double vbx_print_vector_time_per(vbx_timestamp_t start, vbx_timestamp_t stop, double divisor,
                                 const char *divisor_name, double scalar_seconds)
{
    return print_time("Vector", start, stop, scalar_seconds, divisor, divisor_name);
}

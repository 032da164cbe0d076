/*
 * vbx_test.h - the SDK's test harness (mxp-spec.md section 6): initialisation, data
 * generators, printing, verification and timing reports. Output formats are byte-exact with
 * the SDK where the spec fixes them.
 */
#ifndef VBX_TEST_H
#define VBX_TEST_H

#include "vbx.h"
#include "vbx_port.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_PRINT_LENGTH 16

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* Writes 0x04 (EOT) after the result line, as the SDK's non-simulator builds do. */
#ifndef VBX_TEST_EOT
#define VBX_TEST_EOT 1
#endif

/* Makes VBX_GET_THIS_MXP() valid (descriptor from the system-control registers). Returns 0. */
int vbx_test_init(void);

/* The result lines a run is judged by (section 6.1), each followed by EOT where enabled. */
#define VBX_TEST_PASS()                                                                     \
    do {                                                                                    \
        printf("\nTest passed!\n");                                                         \
        if (VBX_TEST_EOT)                                                                   \
            putchar(4);                                                                     \
    } while (0)

#define VBX_TEST_FAIL(errors)                                                               \
    do {                                                                                    \
        printf("\nTest failed with %d errors.\n", (int)(errors));                           \
        if (VBX_TEST_EOT)                                                                   \
            putchar(4);                                                                     \
    } while (0)

#define VBX_TEST_END(errors)                                                                \
    do {                                                                                    \
        if (errors)                                                                         \
            VBX_TEST_FAIL(errors);                                                          \
        else                                                                                \
            VBX_TEST_PASS();                                                                \
    } while (0)

/* Next state of the 32-bit LFSR: p << 1 with bit 0 = bit31 ^ bit21 ^ bit1 ^ bit0 of p. */
int lfsr_32(int p);

/* Generators, printers and checkers for each element type. */
#define VBX_TEST_DECLARE_(suffix, type)                                                     \
    void test_zero_array_##suffix(type *d, int n);                                          \
    void test_copy_array_##suffix(type *out, type *in, int n);                              \
    void test_init_array_##suffix(type *d, int n, int seed);                                \
    void test_inc_array_##suffix(type *d, int n, int seed, int inc);                        \
    void test_init_matrix_##suffix(type *d, int height, int width, int seed);               \
    void test_print_array_##suffix(type *d, int n);                                         \
    void test_print_matrix_##suffix(type *d, int rows, int cols, int pitch);                \
    void test_print_hex_array_##suffix(type *d, int n);                                     \
    void test_print_hex_matrix_##suffix(type *d, int rows, int cols, int pitch);            \
    int test_verify_array_##suffix(type *scalar, type *vector, int n);                      \
    int test_range_array_##suffix(type *scalar, type *vector, int n, int range);

VBX_TEST_DECLARE_(byte, int8_t)
VBX_TEST_DECLARE_(half, int16_t)
VBX_TEST_DECLARE_(word, int32_t)
VBX_TEST_DECLARE_(ubyte, uint8_t)
VBX_TEST_DECLARE_(uhalf, uint16_t)
VBX_TEST_DECLARE_(uword, uint32_t)

/* Engineering notation of v with `digits` significant digits, in a static buffer. */
char *vbx_eng(double v, int digits);

/* "MXP Parameters:" and one "name = value" line per parameter. */
void vbx_mxp_print_params(void);

/* Timing reports; each returns the elapsed seconds (0.0 when stop < start). */
double vbx_print_scalar_time(vbx_timestamp_t start, vbx_timestamp_t stop);
double vbx_print_vector_time(vbx_timestamp_t start, vbx_timestamp_t stop, double scalar_seconds);
double vbx_print_scalar_time_per(vbx_timestamp_t start, vbx_timestamp_t stop, double divisor,
                                 const char *divisor_name);
double vbx_print_vector_time_per(vbx_timestamp_t start, vbx_timestamp_t stop, double divisor,
                                 const char *divisor_name, double scalar_seconds);

#ifdef __cplusplus
}
#endif

#endif

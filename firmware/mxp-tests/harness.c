/*
 * harness.c - the SDK test harness on the CPU alone (mxp-spec.md section 6): the first values
 * of every data generator, every print format, verify/range counts and their mismatch
 * report, vbx_eng, lfsr_32 and VBX_TEST_END. Needs neither the MXP nor the system-control
 * registers (no vbx_test_init), so it also runs under QEMU.
 *
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_test.h"

#define N 16

int main(void)
{
    int8_t b[N];
    int16_t h[N];
    int32_t w[N];
    uint8_t ub[N];
    uint16_t uh[N];
    uint32_t uw[N];

    printf("init_array seed 1:\n");
    test_init_array_byte(b, N, 1);
    test_print_array_byte(b, N);
    test_init_array_half(h, N, 1);
    test_print_array_half(h, N);
    test_init_array_word(w, N, 1);
    test_print_array_word(w, N);
    test_init_array_ubyte(ub, N, 1);
    test_print_array_ubyte(ub, N);
    test_init_array_uhalf(uh, N, 1);
    test_print_array_uhalf(uh, N);
    test_init_array_uword(uw, N, 1);
    test_print_array_uword(uw, N);

    printf("init_array seeds 5, 112, 0xff (byte, word, ubyte):\n");
    test_init_array_byte(b, N, 5);
    test_print_array_byte(b, 8);
    test_init_array_word(w, N, 112);
    test_print_array_word(w, N);
    uint8_t ub20[20];
    test_init_array_ubyte(ub20, 20, 0xff);
    test_print_array_ubyte(ub20, 20); /* every element, as the SDK (not MAX_PRINT_LENGTH) */

    printf("inc_array:\n");
    test_inc_array_byte(b, N, -3, 2);
    test_print_array_byte(b, 8);
    test_inc_array_half(h, N, -3, 2);
    test_print_array_half(h, 8);
    test_inc_array_word(w, N, -32 * 65536, 3 * 65536); /* libfixmath: fix16(-32), fix16(3) */
    test_print_array_word(w, 4);
    test_inc_array_uword(uw, N, 3200u * 65536u, 11u * 65536u);
    test_print_hex_array_uword(uw, 4);
    test_inc_array_ubyte(ub, N, 250, 1);
    test_print_array_ubyte(ub, 6);

    printf("lfsr_32 from -2:\n");
    int s = -2;
    for (int i = 0; i < 6; i++) {
        printf("%08X ", (unsigned)s);
        s = lfsr_32(s);
    }
    printf("\n");

    printf("init_matrix:\n");
    int8_t mb[4 * 5];
    test_init_matrix_byte(mb, 4, 5, -2);
    test_print_matrix_byte(mb, 4, 5, 5);
    test_print_hex_matrix_byte(mb, 2, 3, 5);
    int16_t mh[2 * 3];
    test_init_matrix_half(mh, 2, 3, -2);
    test_print_matrix_half(mh, 2, 3, 3);
    uint32_t mw[2 * 4];
    test_init_matrix_uword(mw, 2, 4, 0x090909);
    test_print_hex_matrix_uword(mw, 2, 4, 4);
    int32_t mws[3];
    test_init_matrix_word(mws, 1, 3, -2);
    test_print_matrix_word(mws, 1, 3, 3);

    printf("hex arrays:\n");
    test_init_array_byte(b, N, 1);
    test_print_hex_array_byte(b, 10);
    test_init_array_half(h, N, 0xff);
    test_print_hex_array_half(h, 4);
    test_zero_array_uhalf(uh, N);
    uh[1] = 0xBEEF;
    test_print_hex_array_uhalf(uh, 3);

    printf("verify and range:\n");
    int32_t a[N], c[N];
    test_init_array_word(a, N, 1);
    test_copy_array_word(c, a, N);
    printf("equal: %d\n", test_verify_array_word(a, c, N));
    c[3] = 1000;
    c[9] = -5;
    int errors = test_verify_array_word(a, c, N);
    printf("two differ: %d\n", errors);
    test_copy_array_word(c, a, N);
    c[2] += 2;
    c[5] -= 1;
    printf("range 2: %d\n", test_range_array_word(a, c, N, 2));
    printf("range 1: %d\n", test_range_array_word(a, c, N, 1));
    uint32_t x[2] = {0, 5}, y[2] = {1, 4};
    printf("uword range 1: %d\n", test_range_array_uword(x, y, 2, 1));
    /* The range is an int, as the SDK's: 200 is not truncated to a byte (-56). */
    int8_t lo[2] = {-100, 50}, hi[2] = {50, -100};
    printf("byte range 200: %d\n", test_range_array_byte(lo, hi, 2, 200));
    printf("byte range 100: %d\n", test_range_array_byte(lo, hi, 2, 100));
    printf("ubyte verify: %d\n", test_verify_array_ubyte(ub, ub, N));

    printf("vbx_eng:\n");
    const double values[] = {0.0, 100e6, 0.5, 1.0, 5.0, 10.0, 123.456, 999.0, 1234.5, 0.001234, 0.0001, -2.5e-7, 33e9};
    for (unsigned i = 0; i < sizeof values / sizeof values[0]; i++)
        printf("%s ", vbx_eng(values[i], 4));
    printf("\n%s ", vbx_eng(12345.0, 3)); /* the result is a static buffer: one per printf */
    printf("%s\n", vbx_eng(7.0, 1));
    /* Fewer digits than the integer part: a negative printf precision, i.e. six decimals. */
    printf("%s ", vbx_eng(123.0, 2));
    printf("%s ", vbx_eng(45.0, 1));
    printf("%s\n", vbx_eng(1234.5, 1));

    printf("timer stopped before it started:\n");
    double t = vbx_print_scalar_time(10, 5);
    t += vbx_print_vector_time_per(7, 6, 4.0, "element", 1.0);
    printf("returned %d\n", (int)t);

    printf("result macros:\n");
    VBX_TEST_FAIL(7);
    VBX_TEST_PASS();

    printf("MIN/MAX: %d %d\n", MIN(3, -4), MAX(3, -4));
    VBX_TEST_END(errors - 2);
    return 0;
}

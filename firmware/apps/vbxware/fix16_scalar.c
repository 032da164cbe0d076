/*
 * fix16_scalar.c - the scalar Q16.16 square root and division of the libfixmath benchmark,
 * computed as libfixmath's default build computes them (32-bit arithmetic only, results
 * rounded, overflow reported), so that the benchmark's reference values are libfixmath's.
 *
 * Square root: sqrt(A / 2^16) in Q16.16 is isqrt(A * 2^16), a 48-bit argument. It is taken
 * digit by digit (binary restoring method) in two passes over 32-bit values: the integer
 * square root of A, then 8 more digits after scaling remainder and root by 2^16.
 *
 * Division: (|a| << 17) / |b| by long division with the CPU's 32-bit divide, shifting in as
 * many dividend bits as fit each time (count of leading zeros); the extra 17th fractional bit
 * rounds the quotient to nearest.
 */
#include <stdint.h>

#include "fix16_scalar.h"

/* |a| as an unsigned number (2^31 for INT32_MIN). */
static uint32_t magnitude(fix16_t a)
{
    return a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
}

/*
 * Square-root digits from weight^2 = bit (a power of 4) down to 1. On entry root holds the
 * digits found so far times 2 * the current digit's weight, rem the argument minus their
 * square. A digit is 1 when rem can pay for it: (R + w)^2 - R^2 = 2Rw + w^2 = root + bit.
 */
static void sqrt_digits(uint32_t *rem, uint32_t *root, uint32_t bit)
{
    for (; bit != 0; bit >>= 2) {
        if (*rem >= *root + bit) {
            *rem -= *root + bit;
            *root = (*root >> 1) + bit;
        } else {
            *root >>= 1;
        }
    }
}

fix16_t fix16_sqrt(fix16_t a)
{
    uint32_t rem = magnitude(a);
    uint32_t root = 0;

    /* The first digit: the largest power of 4 not above the argument (none for 0). */
    uint32_t bit = (rem & 0xFFF00000u) ? 1u << 30 : 1u << 18;
    while (bit > rem)
        bit >>= 2;
    sqrt_digits(&rem, &root, bit);

    /*
     * Scale by 2^16 for 8 more digits, the first of weight 1/2 (bit 1 << 14). A remainder
     * above 65535 would not survive the shift; libfixmath then takes that digit as 1 right
     * away (root + 1/2) and charges rem with root + 1/2 (the exact charge is root + 1/4),
     * keeps 1 << 14 as the next bit, and rounding makes up for it. Kept as it is, so that
     * the reference values are libfixmath's.
     */
    if (rem > 0xFFFFu) {
        rem = ((rem - root) << 16) - 0x8000u;
        root = (root << 16) + 0x8000u;
    } else {
        rem <<= 16;
        root <<= 16;
    }
    sqrt_digits(&rem, &root, 1u << 14);

    /* Round: the next digit would have been 1. */
    if (rem > root)
        root++;

    return a < 0 ? -(fix16_t)root : (fix16_t)root;
}

fix16_t fix16_div(fix16_t a, fix16_t b)
{
    if (b == 0)
        return fix16_minimum;

    uint32_t rem = magnitude(a);
    const uint32_t divisor = magnitude(b);
    uint32_t quotient = 0; /* |a| / |b| in units of 2^-17 */
    int bit_pos = 17;      /* weight of the next quotient digit: 2^bit_pos units */

    while (rem != 0 && bit_pos >= 0) {
        /* Shift in as many dividend bits as fit, but not past the last fractional bit. */
        int shift = __builtin_clz((unsigned)rem);
        if (shift > bit_pos)
            shift = bit_pos;
        rem <<= shift;
        bit_pos -= shift;

        const uint32_t digits = rem / divisor;
        rem %= divisor;
        /* digits << bit_pos must fit in 32 bits. */
        if (digits > (UINT32_MAX >> bit_pos))
            return fix16_overflow;
        quotient += digits << bit_pos;

        /* rem < divisor <= 2^31: one more bit always fits. */
        rem <<= 1;
        bit_pos--;
    }

    /* Round to nearest on the 17th fractional bit. */
    fix16_t result = (fix16_t)((quotient + 1) >> 1);
    return (a ^ b) < 0 ? -result : result;
}

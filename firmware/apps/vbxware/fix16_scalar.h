/*
 * fix16_scalar.h - the scalar Q16.16 reference of the libfixmath benchmark: the parts of
 * libfixmath's interface it uses (type, constants, conversion, square root, division), as in
 * libfixmath's default build (rounding and overflow detection on, no 64-bit arithmetic).
 * Written from the algorithms, not from libfixmath's source.
 */
#ifndef FIX16_SCALAR_H
#define FIX16_SCALAR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A signed Q16.16 number: value = fix16 / 65536. */
typedef int32_t fix16_t;

#define fix16_one ((fix16_t)0x00010000)
#define fix16_minimum ((fix16_t)INT32_MIN)
/* What an operation whose result does not fit returns. */
#define fix16_overflow ((fix16_t)INT32_MIN)

static inline fix16_t fix16_from_int(int a)
{
    return (fix16_t)((uint32_t)a * (uint32_t)fix16_one);
}

/* sqrt(|a|) rounded to the nearest Q16.16 number, negated for negative a. */
fix16_t fix16_sqrt(fix16_t a);

/* a / b rounded to the nearest Q16.16 number; fix16_minimum for b = 0, fix16_overflow when
 * the quotient does not fit. */
fix16_t fix16_div(fix16_t a, fix16_t b);

#ifdef __cplusplus
}
#endif

#endif

/*
 * vbw_fix16.c - vbxware: Q16.16 square root and division on the MXP, in software (VL = n,
 * one element per Q16.16 number, everything in 32-bit unsigned arithmetic unless noted).
 *
 * Both routines turn the data-dependent branches of the scalar algorithms into conditional
 * moves. Their comparisons are "subtract, then test the subtraction's flag": an unsigned
 * VSUB's flag is its borrow, so VCMV_LTZ (= VCMV_FS) means "a < b", VCMV_GEZ "a >= b" and
 * VCMV_GTZ "a > b" even when the difference wraps (mxp-spec.md section 3.5).
 *
 * Square root (vbw_fix16_sqrt): libfixmath's digit-by-digit method (see fix16_scalar.c) on
 * every element at once, 16 + 8 digit steps. The scalar loop starts at the largest power of
 * 4 not above the argument and stops when its bit reaches 0; here every element runs all
 * steps, so an element whose bit is already 0 must keep its remainder and root.
 *
 * Division (vbw_fix16_div): the quotient of |a| / |b| is found bit by bit from bit 31 down:
 * a candidate bit stays when the Q16.16 product candidate * |b| (VMULFXP, rounded) neither
 * saturates (its flag) nor exceeds |a|. The result is the largest q with
 * round(q * |b| / 2^16) <= |a|, within 1 of the rounded quotient for |b| >= 1.0.
 */
#include <stdint.h>

#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_fix16.h"

#define WORD_BITS 32
/* Digit steps of the square root's two passes: the argument's 32 bits (2 per digit), then
 * the 16 more bits the scaling by 2^16 shifts in. */
#define SQRT_FIRST_DIGITS 16
#define SQRT_SECOND_DIGITS 8
/* The square root's temporary block, in n-word vectors: the SDK's routine takes ten; this
 * port uses six of them but keeps the block's size (and so the routine's scratchpad use). */
#define SQRT_BLOCK_VECTORS 10
/* The division's temporaries (never released). */
#define DIV_VECTORS 6

/* The square root's working vectors. */
struct sqrt_vectors {
    vbx_uword_t *rem;   /* remainder: argument minus root^2 */
    vbx_uword_t *root;  /* the root so far, times 2 * the current digit's weight */
    vbx_uword_t *bit;   /* the current digit's weight squared, or 0 when done */
    vbx_uword_t *trial; /* what setting the digit costs */
    vbx_uword_t *diff;  /* rem - trial (its flag: the digit is 0) */
    vbx_uword_t *half;  /* the next root */
    vbx_uword_t *neg;   /* the argument's sign bit */
};

/* The square root's starting bit for every element: 1 << 30, shifted down by 2 as long as it
 * is above the argument (16 steps reach 0 for an argument of 0). */
static void sqrt_start_bit(const struct sqrt_vectors *v)
{
    vbx(SVWU, VMOV, v->bit, 1u << 30, 0);
    for (int i = 0; i < SQRT_FIRST_DIGITS; i++) {
        vbx(VVWU, VSUB, v->diff, v->bit, v->rem);
        vbx(VSWU, VSHR, v->half, v->bit, 2);
        vbx(VVWU, VCMV_GTZ, v->bit, v->half, v->diff);
    }
}

/*
 * One digit step: if rem >= root + bit { rem -= root + bit; root = (root >> 1) + bit; }
 * else root >>= 1; then bit >>= 2. Elements whose bit is 0 change neither rem nor root.
 */
static void sqrt_digit(const struct sqrt_vectors *v)
{
    vbx(VVWU, VADD, v->trial, v->root, v->bit);
    /* Done elements: a cost no remainder can pay (rem <= 2^31 while the bit can be 0). */
    vbx(SVWU, VCMV_Z, v->trial, UINT32_MAX, v->bit);
    vbx(VVWU, VSUB, v->diff, v->rem, v->trial);
    vbx(VVWU, VCMV_GEZ, v->rem, v->diff, v->diff);

    vbx(VSWU, VSHR, v->half, v->root, 1);
    vbx(VVWU, VADD, v->trial, v->half, v->bit);
    vbx(VVWU, VCMV_GEZ, v->half, v->trial, v->diff);
    vbx(VVWU, VCMV_NZ, v->root, v->half, v->bit);

    vbx(VSWU, VSHR, v->bit, v->bit, 2);
}

/*
 * Between the passes, as libfixmath: rem and root scaled by 2^16, except where rem > 65535
 * (it would overflow): there rem = ((rem - root) << 16) - 0x8000 and
 * root = (root << 16) + 0x8000. Then the second pass's first bit, 1 << 14.
 */
static void sqrt_rescale(const struct sqrt_vectors *v)
{
    vbx(SVWU, VSUB, v->diff, 0xFFFF, v->rem); /* flag: rem > 65535 */

    vbx(VVWU, VSUB, v->trial, v->rem, v->root);
    vbx(VSWU, VSHL, v->trial, v->trial, 16);
    vbx(VSWU, VSUB, v->trial, v->trial, 0x8000);
    vbx(VSWU, VSHL, v->half, v->root, 16);
    vbx(SVWU, VADD, v->half, 0x8000, v->half);

    vbx(VSWU, VSHL, v->rem, v->rem, 16);
    vbx(VSWU, VSHL, v->root, v->root, 16);
    vbx(VVWU, VCMV_LTZ, v->rem, v->trial, v->diff);
    vbx(VVWU, VCMV_LTZ, v->root, v->half, v->diff);

    vbx(SVWU, VMOV, v->bit, 1u << 14, 0);
}

/* Round up where the next digit would have been 1 (rem > root), then restore the sign. */
static void sqrt_round_and_sign(const struct sqrt_vectors *v)
{
    vbx(VVWU, VSUB, v->diff, v->root, v->rem);
    vbx(SVWU, VADD, v->trial, 1, v->root);
    vbx(VVWU, VCMV_LTZ, v->root, v->trial, v->diff);

    vbx(SVW, VSUB, v->trial, 0, v->root);
    vbx(VVW, VCMV_NZ, v->root, v->trial, v->neg);
}

void vbw_fix16_sqrt(vbx_word_t *v_out, vbx_word_t *v_in, const int n)
{
    vbx_sp_push();
    vbx_uword_t *block = vbx_sp_malloc(SQRT_BLOCK_VECTORS * n * sizeof(vbx_uword_t));
    if (block == NULL) {
        vbx_sp_pop(); /* nothing done */
        return;
    }
    const struct sqrt_vectors v = {
        .rem = block,
        .bit = block + n,
        .trial = block + 2 * n,
        .diff = block + 3 * n,
        .half = block + 4 * n,
        .neg = block + 5 * n,
        .root = (vbx_uword_t *)v_out,
    };

    vbx_set_vl(n, 1, 1);
    /* Everything that reads v_in comes first: v_out may be v_in. */
    vbx(SVW, VAND, v.neg, INT32_MIN, v_in);
    vbx(SVW, VABSDIFF, v.rem, 0, v_in);
    vbx(SVWU, VMOV, v.root, 0, 0);

    sqrt_start_bit(&v);
    for (int i = 0; i < SQRT_FIRST_DIGITS; i++)
        sqrt_digit(&v);
    sqrt_rescale(&v);
    for (int i = 0; i < SQRT_SECOND_DIGITS; i++)
        sqrt_digit(&v);
    sqrt_round_and_sign(&v);

    vbx_sp_pop();
}

/* The division's working vectors. */
struct div_vectors {
    vbx_uword_t *num;   /* |a| */
    vbx_uword_t *den;   /* |b| */
    vbx_uword_t *sign;  /* sign bit of a ^ b: the quotient's sign */
    vbx_uword_t *prod;  /* candidate * |b| in Q16.16 (flag: saturated) */
    vbx_uword_t *diff;  /* prod - |a| */
    vbx_uword_t *drop;  /* the candidate without its new bit */
    vbx_uword_t *quot;  /* the quotient so far */
};

/* Tries one quotient bit: keeps it unless the product saturates or exceeds |a|. */
static void div_quotient_bit(const struct div_vectors *v, uint32_t bit)
{
    vbx(SVWU, VOR, v->quot, bit, v->quot);
    vbx(VVWU, VMULFXP, v->prod, v->quot, v->den);
    vbx(SVWU, VXOR, v->drop, bit, v->quot);
    vbx(VVWU, VCMV_FS, v->quot, v->drop, v->prod);
    vbx(VVWU, VSUB, v->diff, v->prod, v->num);
    vbx(VVWU, VCMV_GTZ, v->quot, v->drop, v->diff);
}

void vbw_fix16_div(vbx_word_t *v_out, vbx_word_t *v_a, vbx_word_t *v_b, const int n)
{
    vbx_uword_t *t[DIV_VECTORS];
    for (int i = 0; i < DIV_VECTORS; i++) {
        t[i] = vbx_sp_malloc(n * sizeof(vbx_uword_t));
        if (t[i] == NULL)
            return; /* nothing done */
    }
    const struct div_vectors v = {
        .num = t[0],
        .den = t[1],
        .sign = t[2],
        .prod = t[3],
        .diff = t[4],
        .drop = t[5],
        .quot = (vbx_uword_t *)v_out,
    };

    vbx_set_vl(n, 1, 1);
    /* Everything that reads v_a and v_b comes first: v_out may be either. */
    vbx(SVW, VABSDIFF, v.num, 0, v_a);
    vbx(SVW, VABSDIFF, v.den, 0, v_b);
    vbx(VVW, VXOR, v.sign, v_a, v_b);
    vbx(SVW, VAND, v.sign, INT32_MIN, v.sign);
    vbx(SVWU, VMOV, v.quot, 0, 0);

    for (int bit = WORD_BITS - 1; bit >= 0; bit--)
        div_quotient_bit(&v, 1u << bit);

    vbx(SVW, VMUL, v.prod, -1, v.quot);
    vbx(VVW, VCMV_NZ, v.quot, v.prod, v.sign);
}

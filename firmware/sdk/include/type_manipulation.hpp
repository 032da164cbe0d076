/*
 * type_manipulation.hpp - compile-time type traits of the vbx C++ layer, as an independent
 * work-alike for mxpsim (firmware/sdk/README.md; facts from mxp-spec.md section 2.9.6).
 * Global namespace, as in the SDK. vbxware uses word_sized and signed_conv.
 *
 *   word_sized<T>::type            vbx_word_t if T is signed, else vbx_uword_t (vbx_enum_t: signed)
 *   signed_conv<T>::type           the signed integer type of T's width (char: signed char);
 *   unsigned_conv<T>::type         the unsigned one; only for the standard integer types
 *   type_sign<T>::is_signed / ::is_unsigned, is_signed<T>()   (vbx_enum_t counts as signed)
 *   is_bigger<T, U>::result        T wider, or as wide with T unsigned and U signed
 *   bigger<T, U>::type             the wider; at equal width with different signs, the unsigned one
 *   biggest<T, U, V, W>::type      bigger of all (defaults: signed char)
 *   choose_type<N, T, U, V, W>::type   the N-th type (N = 0..3)
 *   use_signed<T, U>()             true if both signed, false if both unsigned, else U's sign
 *   same_sign_as<T, U>::type       T's width with U's sign
 *   types_are_equivalent<T, U>::type   defined only for identical integer types (or one side
 *                                  vbx_enum_t): the non-enum type (a type check)
 *   dimensions_match<d1, d2>::dim  defined only when d1 == d2 or one is -1 (a dimension check)
 *
 * The results for the element types are the very typedefs (signed_conv<vbx_uword_t>::type
 * is vbx_word_t, `long` on rv32, not `int`). No standard C++ headers are used. Template
 * parameter names avoid the object-like macros of vbw_template_t.h (T, B, H, W, ...).
 */
#ifndef TYPE_MANIPULATION_HPP
#define TYPE_MANIPULATION_HPP

#ifndef __cplusplus
#error "type_manipulation.hpp is C++"
#endif

#include "vbx_types.h"

extern "C++" {

/* ---- signedness ------------------------------------------------------------------------------ */

/* (Ty_)-1 < 0, without comparing an unsigned integer with 0 (-Wtype-limits). */
template <typename Ty_> struct vbx_tm_signed_ { enum { value = (Ty_)-1 < (Ty_)0 }; };
#define VBX_TM_SIGN_(ty_, s_) template <> struct vbx_tm_signed_<ty_> { enum { value = s_ }; };
VBX_TM_SIGN_(bool, 0)
#ifdef __CHAR_UNSIGNED__
VBX_TM_SIGN_(char, 0)
#else
VBX_TM_SIGN_(char, 1)
#endif
VBX_TM_SIGN_(signed char, 1)
VBX_TM_SIGN_(unsigned char, 0)
VBX_TM_SIGN_(short, 1)
VBX_TM_SIGN_(unsigned short, 0)
VBX_TM_SIGN_(int, 1)
VBX_TM_SIGN_(unsigned int, 0)
VBX_TM_SIGN_(long, 1)
VBX_TM_SIGN_(unsigned long, 0)
VBX_TM_SIGN_(long long, 1)
VBX_TM_SIGN_(unsigned long long, 0)
VBX_TM_SIGN_(vbx_enum_t, 1)
#undef VBX_TM_SIGN_

template <typename Ty_> struct type_sign {
    static const bool is_signed = vbx_tm_signed_<Ty_>::value;
    static const bool is_unsigned = !vbx_tm_signed_<Ty_>::value;
};
template <typename Ty_> const bool type_sign<Ty_>::is_signed;
template <typename Ty_> const bool type_sign<Ty_>::is_unsigned;

template <typename Ty_> inline bool is_signed()
{
    return vbx_tm_signed_<Ty_>::value;
}

/* ---- type selection -------------------------------------------------------------------------- */

template <bool Cond_, typename Then_, typename Else_> struct vbx_tm_if_ { typedef Then_ type; };
template <typename Then_, typename Else_> struct vbx_tm_if_<false, Then_, Else_> { typedef Else_ type; };

template <typename Ty_> struct word_sized {
    typedef typename vbx_tm_if_<vbx_tm_signed_<Ty_>::value, vbx_word_t, vbx_uword_t>::type type;
};

template <int N_, typename Ty0_, typename Ty1_, typename Ty2_ = void, typename Ty3_ = void> struct choose_type;
template <typename Ty0_, typename Ty1_, typename Ty2_, typename Ty3_> struct choose_type<0, Ty0_, Ty1_, Ty2_, Ty3_> {
    typedef Ty0_ type;
};
template <typename Ty0_, typename Ty1_, typename Ty2_, typename Ty3_> struct choose_type<1, Ty0_, Ty1_, Ty2_, Ty3_> {
    typedef Ty1_ type;
};
template <typename Ty0_, typename Ty1_, typename Ty2_, typename Ty3_> struct choose_type<2, Ty0_, Ty1_, Ty2_, Ty3_> {
    typedef Ty2_ type;
};
template <typename Ty0_, typename Ty1_, typename Ty2_, typename Ty3_> struct choose_type<3, Ty0_, Ty1_, Ty2_, Ty3_> {
    typedef Ty3_ type;
};

/* ---- same width, other sign -------------------------------------------------------------------- */

template <typename Ty_> struct signed_conv; /* incomplete for anything but the integer types */
template <typename Ty_> struct unsigned_conv;
#define VBX_TM_CONV_(ty_, s_, u_)                                                                \
    template <> struct signed_conv<ty_> { typedef s_ type; };                                   \
    template <> struct unsigned_conv<ty_> { typedef u_ type; };
VBX_TM_CONV_(char, signed char, unsigned char)
VBX_TM_CONV_(signed char, signed char, unsigned char)
VBX_TM_CONV_(unsigned char, signed char, unsigned char)
VBX_TM_CONV_(short, short, unsigned short)
VBX_TM_CONV_(unsigned short, short, unsigned short)
VBX_TM_CONV_(int, int, unsigned int)
VBX_TM_CONV_(unsigned int, int, unsigned int)
VBX_TM_CONV_(long, long, unsigned long)
VBX_TM_CONV_(unsigned long, long, unsigned long)
VBX_TM_CONV_(long long, long long, unsigned long long)
VBX_TM_CONV_(unsigned long long, long long, unsigned long long)
#undef VBX_TM_CONV_

template <typename Ty_, typename Like_> struct same_sign_as {
    typedef typename vbx_tm_if_<vbx_tm_signed_<Like_>::value, typename signed_conv<Ty_>::type,
                                typename unsigned_conv<Ty_>::type>::type type;
};

/* ---- width comparisons ------------------------------------------------------------------------- */

template <typename Ty_, typename Uy_> struct is_bigger {
    static const bool result =
        sizeof(Ty_) > sizeof(Uy_) ||
        (sizeof(Ty_) == sizeof(Uy_) && !vbx_tm_signed_<Ty_>::value && vbx_tm_signed_<Uy_>::value);
};
template <typename Ty_, typename Uy_> const bool is_bigger<Ty_, Uy_>::result;

template <typename Ty_, typename Uy_> struct bigger {
    typedef typename vbx_tm_if_<is_bigger<Uy_, Ty_>::result, Uy_, Ty_>::type type;
};

template <typename Ty0_, typename Ty1_ = signed char, typename Ty2_ = signed char, typename Ty3_ = signed char>
struct biggest {
    typedef typename bigger<typename bigger<Ty0_, Ty1_>::type, typename bigger<Ty2_, Ty3_>::type>::type type;
};

template <typename Ty_, typename Uy_> inline bool use_signed()
{
    return vbx_tm_signed_<Ty_>::value && vbx_tm_signed_<Uy_>::value    ? true
           : !vbx_tm_signed_<Ty_>::value && !vbx_tm_signed_<Uy_>::value ? false
                                                                        : (bool)vbx_tm_signed_<Uy_>::value;
}

/* ---- checks ------------------------------------------------------------------------------------------ */

template <typename Ty_, typename Uy_> struct types_are_equivalent; /* incomplete: not equivalent */
#define VBX_TM_EQUIV_(ty_)                                                                       \
    template <> struct types_are_equivalent<ty_, ty_> { typedef ty_ type; };                     \
    template <> struct types_are_equivalent<ty_, vbx_enum_t> { typedef ty_ type; };              \
    template <> struct types_are_equivalent<vbx_enum_t, ty_> { typedef ty_ type; };
VBX_TM_EQUIV_(char)
VBX_TM_EQUIV_(signed char)
VBX_TM_EQUIV_(unsigned char)
VBX_TM_EQUIV_(short)
VBX_TM_EQUIV_(unsigned short)
VBX_TM_EQUIV_(int)
VBX_TM_EQUIV_(unsigned int)
VBX_TM_EQUIV_(long)
VBX_TM_EQUIV_(unsigned long)
VBX_TM_EQUIV_(long long)
VBX_TM_EQUIV_(unsigned long long)
#undef VBX_TM_EQUIV_
template <> struct types_are_equivalent<vbx_enum_t, vbx_enum_t> { typedef vbx_enum_t type; };

template <int D1_, int D2_> struct dimensions_match; /* incomplete: mismatch */
template <int D_> struct dimensions_match<D_, D_> { enum { dim = D_ }; };
template <int D_> struct dimensions_match<D_, -1> { enum { dim = D_ }; };
template <int D_> struct dimensions_match<-1, D_> { enum { dim = D_ }; };
template <> struct dimensions_match<-1, -1> { enum { dim = -1 }; };

} /* extern "C++" */

#endif

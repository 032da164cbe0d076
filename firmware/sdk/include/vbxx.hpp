/*
 * vbxx.hpp - the C++ layer of the vbx API (`vbxx`), as an independent work-alike for mxpsim's
 * MXP-style accelerator (firmware/sdk/README.md; facts from mxp-spec.md section 2.9).
 *
 * vbx.h includes this header at its end when compiled as C++, so C++ code that includes only
 * vbx.h sees it, as with the SDK. The mode of each instruction is inferred from the C++ types
 * of its operands (section 2.9.4) and the command words are exactly those of the C macro with
 * that mode, e.g. vbxx(VADD, half_ptr, byte_ptr, ubyte_ptr) issues what
 * vbx(VVHBBSSU, VADD, d, a, b) issues.
 *
 *   vbxx(instr, d, a, b)             d: pointer to one of the six element types (vbx_byte_t ...
 *   vbxx(instr, d, a)                vbx_uword_t, not const or volatile); a, b: such a pointer
 *   vbxx_acc(...)                    (a vector), an integer (a scalar) or, as b only, a
 *   vbxx_masked(...)                 vbx_enum_t * (the enumerated operand; callers write
 *   vbxx_masked_acc(...)             (vbx_enum_t *)0). The 2-operand form is b = enumerated.
 *   vbxx(modifier, instr, d, a, b)   the form the others call: scalars must be exactly
 *                                    vbx_word_t or vbx_uword_t (or, in SE, anything that
 *                                    converts to D's word type).
 *   vbxx_setup_mask(test, src)       a mask set-up on src (VSET_MSK_<test>), the mode taken
 *   vbxx_setup_mask_masked(test, src)  from src's type; _vbxx_setup_mask(test, src, MASKED)
 *                                    is the SDK's helper-macro spelling of the same.
 *
 * Modes (D, A, B fields; S/U from each operand's own type, no promotion between operands):
 *   vector a, vector b    VV  D, A, B as typed; B word 0 for VMOV
 *   scalar a, vector b    SV  A size = wider of D and B, A sign = the scalar's; B word 0 for VMOV
 *   vector a, enum b      VE  D, A as typed, B = A's size and sign; B word 0
 *   scalar a, enum b      SE  A and B = D's size and sign (the scalar's sign is ignored); B word 0
 *   vector a, scalar b    VS  the pseudo-mode, issued as an SV instruction (section 2.8):
 *                             vbx_vs_() of vbx.h, with the scalar's sign; VMOV sends B word 0
 * Scalars: signed char, short, int, long, long long become vbx_word_t, their unsigned forms
 * vbx_uword_t (convert_to_word_if_integral), and the value is sent as 32 bits. Anything else
 * (plain char, bool, enumerations, floating point) is not accepted as an SV or VS scalar.
 * Instructions are vinstr_t values (constant or not); a value that is not an enumerator
 * issues nothing. A VCUSTOMn in the VS shape asserts and issues nothing.
 *
 * Decision (see README): vbxx_masked_acc sets MOD_MASKED | MOD_ACC like vbx_masked_acc.
 * The SDK's template sets MOD_MASKED only (a slip: MOD_NONE where MOD_ACC was meant); define
 * VBXX_MASKED_ACC_AS_SDK to 1 to get the SDK's words.
 *
 * Everything here is a template or always-inline, so the header defines nothing out of line.
 * Written for any C++ dialect from C++98 on; no standard C++ headers are used (the toolchain
 * has none). Template parameter names avoid the object-like macros of vbw_template_t.h.
 */
#ifndef VBXX_HPP
#define VBXX_HPP

#ifndef __cplusplus
#error "vbxx.hpp is C++; C code uses the vbx() macros of vbx.h"
#endif

#include "vbx.h"

#ifndef VBXX_MASKED_ACC_AS_SDK
#define VBXX_MASKED_ACC_AS_SDK 0
#endif

#define VBXX_INLINE_ inline __attribute__((always_inline))

extern "C++" {

/* ---- scalar normalisation (section 2.9.3) ------------------------------------------------- */

template <typename Scalar_> struct convert_to_word_if_integral { typedef Scalar_ type; };
template <> struct convert_to_word_if_integral<signed char> { typedef vbx_word_t type; };
template <> struct convert_to_word_if_integral<short> { typedef vbx_word_t type; };
template <> struct convert_to_word_if_integral<int> { typedef vbx_word_t type; };
template <> struct convert_to_word_if_integral<long> { typedef vbx_word_t type; };
template <> struct convert_to_word_if_integral<long long> { typedef vbx_word_t type; };
template <> struct convert_to_word_if_integral<unsigned char> { typedef vbx_uword_t type; };
template <> struct convert_to_word_if_integral<unsigned short> { typedef vbx_uword_t type; };
template <> struct convert_to_word_if_integral<unsigned int> { typedef vbx_uword_t type; };
template <> struct convert_to_word_if_integral<unsigned long> { typedef vbx_uword_t type; };
template <> struct convert_to_word_if_integral<unsigned long long> { typedef vbx_uword_t type; };

/* ---- operand classification ------------------------------------------------------------------ */

/* The six element types: size code and sign. Anything else is not a vector operand. */
template <typename Elem_> struct vbxx_elem_ {
    static const int ok = 0, size = 0, sign = 0;
};
template <> struct vbxx_elem_<vbx_byte_t> {
    static const int ok = 1, size = VBX_OPSIZE_BYTE, sign = 1;
};
template <> struct vbxx_elem_<vbx_ubyte_t> {
    static const int ok = 1, size = VBX_OPSIZE_BYTE, sign = 0;
};
template <> struct vbxx_elem_<vbx_half_t> {
    static const int ok = 1, size = VBX_OPSIZE_HALF, sign = 1;
};
template <> struct vbxx_elem_<vbx_uhalf_t> {
    static const int ok = 1, size = VBX_OPSIZE_HALF, sign = 0;
};
template <> struct vbxx_elem_<vbx_word_t> {
    static const int ok = 1, size = VBX_OPSIZE_WORD, sign = 1;
};
template <> struct vbxx_elem_<vbx_uword_t> {
    static const int ok = 1, size = VBX_OPSIZE_WORD, sign = 0;
};

/* What an operand of type Op_ (after normalisation) is. */
static const int VBXX_OTHER_ = 0, VBXX_VECTOR_ = 1, VBXX_SCALAR_ = 2, VBXX_ENUM_ = 3;
template <typename Op_> struct vbxx_kind_ {
    static const int kind = VBXX_OTHER_, size = 0, sign = 0;
};
template <typename Elem_> struct vbxx_kind_<Elem_ *> {
    static const int kind = vbxx_elem_<Elem_>::ok ? VBXX_VECTOR_ : VBXX_OTHER_;
    static const int size = vbxx_elem_<Elem_>::size, sign = vbxx_elem_<Elem_>::sign;
};
template <> struct vbxx_kind_<vbx_enum_t *> {
    static const int kind = VBXX_ENUM_, size = 0, sign = 0;
};
template <> struct vbxx_kind_<vbx_word_t> {
    static const int kind = VBXX_SCALAR_, size = 0, sign = 1;
};
template <> struct vbxx_kind_<vbx_uword_t> {
    static const int kind = VBXX_SCALAR_, size = 0, sign = 0;
};

/* Whether From_ converts implicitly to To_ (no <type_traits> here). */
template <typename From_, typename To_> struct vbxx_converts_ {
    typedef char yes_[1];
    typedef char no_[2];
    static yes_ &test_(To_);
    static no_ &test_(...);
    static From_ make_();
    static const bool value = sizeof(test_(make_())) == sizeof(yes_);
};

template <bool Cond_, typename Result_ = void> struct vbxx_enable_if_ {};
template <typename Result_> struct vbxx_enable_if_<true, Result_> { typedef Result_ type; };

/* ---- mode inference (section 2.9.4) -------------------------------------------------------- */

static const int VBXX_BAD_ = 0, VBXX_VV_ = 1, VBXX_SV_ = 2, VBXX_VE_ = 3, VBXX_SE_ = 4, VBXX_VS_ = 5;

/* The call shape of (D_ *d, A_ a, B_ b) with a and b already normalised, and the word-0 mode
 * bits it issues (for VS: the VS pseudo-mode word that vbx_vs_() expects, A = the vector, B's
 * sign bit = the scalar's sign). */
template <typename D_, typename A_, typename B_> struct vbxx_mode_ {
    typedef vbxx_elem_<D_> d_;
    typedef vbxx_kind_<A_> a_;
    typedef vbxx_kind_<B_> b_;
    static const bool se_scalar_ok =
        d_::sign ? vbxx_converts_<A_, vbx_word_t>::value : vbxx_converts_<A_, vbx_uword_t>::value;
    static const int shape = !d_::ok ? VBXX_BAD_
                           : a_::kind == VBXX_VECTOR_ && b_::kind == VBXX_VECTOR_ ? VBXX_VV_
                           : a_::kind == VBXX_SCALAR_ && b_::kind == VBXX_VECTOR_ ? VBXX_SV_
                           : a_::kind == VBXX_VECTOR_ && b_::kind == VBXX_ENUM_   ? VBXX_VE_
                           : a_::kind == VBXX_VECTOR_ && b_::kind == VBXX_SCALAR_ ? VBXX_VS_
                           : a_::kind != VBXX_VECTOR_ && a_::kind != VBXX_ENUM_ && b_::kind == VBXX_ENUM_ &&
                                   se_scalar_ok
                               ? VBXX_SE_
                               : VBXX_BAD_;
    /* Size and sign of each field. */
    static const int dsz = d_::size, ds = d_::sign;
    static const int asz = shape == VBXX_SV_ ? (d_::size > b_::size ? d_::size : b_::size)
                         : shape == VBXX_SE_ ? d_::size
                                             : a_::size;
    static const int as = shape == VBXX_SE_ ? d_::sign : a_::sign;
    static const int bsz = shape == VBXX_SE_                        ? d_::size
                         : shape == VBXX_VE_ || shape == VBXX_VS_ ? a_::size
                                                                    : b_::size;
    static const int bs = shape == VBXX_SE_ ? d_::sign : shape == VBXX_VE_ ? a_::sign : b_::sign;
    static const uint32_t kind_bits = shape == VBXX_SV_ ? VBX_MODE_SV
                                    : shape == VBXX_VE_ ? VBX_MODE_VE
                                    : shape == VBXX_SE_ ? VBX_MODE_SE
                                    : shape == VBXX_VS_ ? VBX_MODE_VS_PSEUDO
                                                        : VBX_MODE_VV;
    static const uint32_t bits = kind_bits | (ds ? VBX_DEST_SIGNED : 0u) | (as ? VBX_A_SIGNED : 0u) |
                                 (bs ? VBX_B_SIGNED : 0u) | ((uint32_t)dsz << DEST_SIZE_RIGHT) |
                                 ((uint32_t)asz << A_SIZE_RIGHT) | ((uint32_t)bsz << B_SIZE_RIGHT);
};
template <typename D_, typename A_, typename B_> const uint32_t vbxx_mode_<D_, A_, B_>::kind_bits;
template <typename D_, typename A_, typename B_> const uint32_t vbxx_mode_<D_, A_, B_>::bits;

/* An operand as a command word: a pointer's address, a scalar converted to D's word type. */
template <typename D_, typename Elem_> VBXX_INLINE_ uint32_t vbxx_word_(Elem_ *p)
{
    return (uint32_t)(uintptr_t)p;
}
template <typename D_, typename Scalar_> VBXX_INLINE_ uint32_t vbxx_word_(Scalar_ s)
{
    return vbxx_elem_<D_>::sign ? (uint32_t)(vbx_word_t)s : (uint32_t)(vbx_uword_t)s;
}

/* Issues one instruction of a known shape. */
static VBXX_INLINE_ void vbxx_issue_(int shape, uint32_t mode, uint32_t mods, vinstr_t instr, uint32_t d,
                                     uint32_t a, uint32_t b)
{
    if ((uint32_t)instr > (uint32_t)VCUSTOM15) /* not an instruction: nothing, as the SDK */
        return;
    if (shape == VBXX_VS_) {
        /* vector a, scalar b */
        if (instr >= VCUSTOM0) {
            assert(!"vbxx: VCUSTOMn has no vector-scalar form");
            return;
        }
        if (instr == VMOV) /* the scalar broadcast; the B word is 0 as for every VMOV */
            vbx_cmd4_(vbx_vs_as_sv_(mode, (mode & VBX_B_SIGNED) != 0) | mods | VMOV_I, b, 0, d);
        else
            vbx_vs_(mode, instr, mods, d, a, b);
        return;
    }
    if (shape == VBXX_VE_ || shape == VBXX_SE_ || instr == VMOV)
        b = 0;
    vbx_cmd4_(mode | mods | vbx_hw_opcode(instr), a, b, d);
}

/* ---- entry points (section 2.9.2) ------------------------------------------------------------ */

/* vbxx(modifier, instr, d, a, b): scalars exactly vbx_word_t / vbx_uword_t (SE: convertible). */
template <typename D_, typename A_, typename B_>
VBXX_INLINE_ typename vbxx_enable_if_<vbxx_mode_<D_, A_, B_>::shape != VBXX_BAD_>::type
vbxx(int modifier, vinstr_t instr, D_ *d, A_ a, B_ b)
{
    typedef vbxx_mode_<D_, A_, B_> mode_;
    vbxx_issue_(mode_::shape, mode_::bits, (uint32_t)modifier, instr, (uint32_t)(uintptr_t)d, vbxx_word_<D_>(a),
                vbxx_word_<D_>(b));
}

/* The shape check of the user-facing forms, on the normalised operand types. */
template <typename D_, typename A_, typename B_> struct vbxx_accepts_ {
    static const bool value = vbxx_mode_<D_, typename convert_to_word_if_integral<A_>::type,
                                         typename convert_to_word_if_integral<B_>::type>::shape != VBXX_BAD_;
};

#define VBXX_ENTRY_(name, mods)                                                                  \
    template <typename D_, typename A_, typename B_>                                          \
    VBXX_INLINE_ typename vbxx_enable_if_<vbxx_accepts_<D_, A_, B_>::value>::type name(        \
        vinstr_t instr, D_ *d, A_ a, B_ b)                                                     \
    {                                                                                          \
        vbxx((int)(mods), instr, d, (typename convert_to_word_if_integral<A_>::type)a,        \
             (typename convert_to_word_if_integral<B_>::type)b);                              \
    }                                                                                          \
    template <typename D_, typename A_>                                                       \
    VBXX_INLINE_ typename vbxx_enable_if_<vbxx_accepts_<D_, A_, vbx_enum_t *>::value>::type    \
    name(vinstr_t instr, D_ *d, A_ a)                                                          \
    {                                                                                          \
        vbxx((int)(mods), instr, d, (typename convert_to_word_if_integral<A_>::type)a,        \
             (vbx_enum_t *)0);                                                                 \
    }

VBXX_ENTRY_(vbxx, MOD_NONE)
VBXX_ENTRY_(vbxx_acc, MOD_ACC)
VBXX_ENTRY_(vbxx_masked, MOD_MASKED)
#if VBXX_MASKED_ACC_AS_SDK
VBXX_ENTRY_(vbxx_masked_acc, MOD_MASKED)
#else
VBXX_ENTRY_(vbxx_masked_acc, MOD_MASKED_ACC)
#endif
#undef VBXX_ENTRY_

/* ---- masks ------------------------------------------------------------------------------------ */

/* vbx_setup_mask(SV<size><sign>, test, src) with the size and sign of src's type: SVBS, SVBU,
 * SVHS, SVHU, SVWS or SVWU (the SDK's _vbxx_setup_mask helper). TEST is a VCMV_* name (a
 * VSET_MSK_* name works too). The SDK's Vector layer instead issues
 * vbxx(VSET_MSK_<test>, src, src, src), a VV instruction, which works here as well. */
template <typename Src_> struct vbxx_mask_mode_ {
    typedef vbxx_elem_<Src_> e_;
    static const uint32_t bits = VBX_MODE_SV | (e_::sign ? VBX_DEST_SIGNED | VBX_A_SIGNED | VBX_B_SIGNED : 0u) |
                                 ((uint32_t)e_::size << DEST_SIZE_RIGHT) | ((uint32_t)e_::size << A_SIZE_RIGHT) |
                                 ((uint32_t)e_::size << B_SIZE_RIGHT);
};
template <typename Src_> const uint32_t vbxx_mask_mode_<Src_>::bits;

template <typename Src_>
VBXX_INLINE_ typename vbxx_enable_if_<(bool)vbxx_elem_<Src_>::ok>::type vbxx_setup_mask(vinstr_t test, Src_ *src)
{
    vbx_setup_mask_(vbxx_mask_mode_<Src_>::bits, test, MOD_NONE, (uint32_t)(uintptr_t)src);
}

template <typename Src_>
VBXX_INLINE_ typename vbxx_enable_if_<(bool)vbxx_elem_<Src_>::ok>::type vbxx_setup_mask_masked(vinstr_t test,
                                                                                            Src_ *src)
{
    vbx_setup_mask_(vbxx_mask_mode_<Src_>::bits, test, MOD_MASKED, (uint32_t)(uintptr_t)src);
}

} /* extern "C++" */

/* The SDK's helper: MASKED is empty or _masked. */
#define _vbxx_setup_mask(INSTR, SRC, MASKED) vbxx_setup_mask##MASKED((INSTR), (SRC))

#undef VBXX_INLINE_

#endif

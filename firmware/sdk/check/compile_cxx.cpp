/*
 * compile_cxx.cpp - compile-only check (run-checks.sh) of the C++ layer (vbxx.hpp,
 * type_manipulation.hpp): code in the style of the SDK's C++ vbxware routines - every call
 * shape mxp-spec.md 2.9.5 lists, in templates instantiated for all six element types through
 * extern "C" wrappers - builds warning-free in every C++ dialect from gnu++98 to gnu++20.
 * The C template header comes FIRST, so its object-like macros (T, B, H, W, ...) are
 * defined while the C++ headers are read; the headers follow in the routines' orders
 * (vbw_exit_codes.h first, type_manipulation.hpp twice).
 */
#define VBX_TEMPLATE_T VBX_WORDSIZE_DEF
#include "vbw_template_t.h"

#include "vbw_exit_codes.h"
#include "vbx.h"
#include "vbx_test.h"
#include "vbw_template.hpp"
#include "type_manipulation.hpp"
#include "vbx_copyright.h"

VBXCOPYRIGHT(compile_cxx)

/* vbw_vec_add: VV, and a 2-operand VE move. */
template <typename Elem> int vec_add_like(Elem *out, Elem *in1, Elem *in2, int n)
{
    vbx_set_vl(n);
    vbxx(VADD, out, in1, in2);
    vbxx(VMOV, out, out);
    return VBW_SUCCESS;
}

/* vbw_vec_power: VE, SE, SV, VV, VS through signed_conv, accumulating SV, word_sized scalars. */
template <typename Elem> int vec_power_like(Elem *out, Elem *base, Elem *exp, int n)
{
    typedef typename signed_conv<Elem>::type Signed;
    vbx_sp_push();
    Elem *t = (Elem *)vbx_sp_malloc(n * sizeof(Elem));
    if (t == NULL) {
        vbx_sp_pop();
        return VBW_ERROR_SP_ALLOC_FAILED;
    }
    vbx_set_vl(n);
    vbxx(VMOV, t, base);
    vbxx(VMOV, out, 1);
    vbxx(VAND, t, 1, exp);
    vbxx(VMUL, out, out, t);
    vbxx(VCMV_NZ, out, t, exp);
    vbxx(VSHR, (Signed *)exp, (Signed *)exp, 1);
    vbxx_acc(VCMV_NZ, t, 1, exp);
    if (is_signed<Elem>()) {
        vbxx(VSUB, t, (typename word_sized<Elem>::type)0, base);
        vbxx(VCMV_GTZ, out, (typename word_sized<Elem>::type)0, t);
    }
    vbx_sp_pop();
    return VBW_SUCCESS;
}

/* vbw_vec_fir: 2D accumulate; the transpose variant's scalar is an element value. */
template <typename Elem> int vec_fir_like(Elem *out, Elem *in, Elem *coeffs, int n, int taps)
{
    vbx_set_vl(taps, n);
    vbx_set_2D(sizeof(Elem), sizeof(Elem), 0);
    vbxx_acc(VMUL, out, in, coeffs);
    vbx_set_vl(n);
    for (int j = 0; j < taps; j++) {
        vbxx(VMUL, in, coeffs[j], in + j);
        vbxx(VADD, out, out, in);
    }
    return VBW_SUCCESS;
}

/* vbw_mtx_fir: word_sized accumulators, an int32_t scalar, VS shift back. */
template <typename Elem> void mtx_2Dfir_like(Elem *out, Elem *in, const int32_t *k, int n)
{
    typedef typename word_sized<Elem>::type Wide;
    Wide *acc = (Wide *)vbx_sp_malloc(n * sizeof(Wide)), *tmp = (Wide *)vbx_sp_malloc(n * sizeof(Wide));
    vbx_set_vl(n);
    vbxx(VMULLO, acc, k[0], in);
    vbxx(VMULLO, tmp, (int32_t)k[1], in + 1);
    vbxx(VADD, acc, acc, tmp);
    vbxx(VSHR, out, acc, 8);
}

/* vbw_mtx_median: VE move, VV subtract and conditional move. */
template <typename Elem> int mtx_median_like(Elem *out, Elem *a, Elem *b, int n)
{
    vbx_set_vl(n);
    vbxx(VMOV, out, a);
    vbxx(VSUB, a, b, out);
    vbxx(VCMV_LTZ, out, b, a);
    return VBW_SUCCESS;
}

/* vbw_mtx_xp: 3D VE move, SE merge network, 2D conditional move, negative size_t strides. */
template <typename Elem> int mtx_xp_like(Elem *out, Elem *in, int rows, int cols)
{
    const size_t wb = (size_t)cols;
    vbx_set_vl(1, rows, cols);
    vbx_set_2D(sizeof(Elem), (size_t)-wb * sizeof(Elem), 0);
    vbx_set_3D(rows * sizeof(Elem), sizeof(Elem), 0);
    vbxx(VMOV, out, in);
    vbx_set_vl(cols);
    int n = VBX_PAD_DN(cols, 4);
    vbxx(VAND, out, n, (vbx_enum_t *)0);
    vbx_set_vl(cols, rows);
    vbxx(VCMV_Z, out, in, out);
    return abs((int)(out - in)) > 0 ? VBW_SUCCESS : VBW_SUCCESS;
}

/* The masked forms and mask set-ups (not used by the six routines). */
template <typename Elem> void masks_like(Elem *out, Elem *in, int n)
{
    vbx_set_vl(n);
    vbxx_setup_mask(VCMV_NZ, in);
    vbxx_setup_mask_masked(VCMV_GTZ, in);
    _vbxx_setup_mask(VCMV_LTZ, in, );
    _vbxx_setup_mask(VCMV_Z, in, _masked);
    vbxx(VSET_MSK_NZ, in, in, in);
    vbxx_masked(VADD, out, in, in);
    vbxx_masked(VSUB, out, in, 1u);
    vbxx_masked_acc(VADD, out, 2, in);
    vbxx_masked_acc(VMOV, out, in);
}

#define WRAPPERS(suffix, type)                                                                     \
    extern "C" int vec_add_##suffix(type *o, type *a, type *b, int n);                             \
    extern "C" int vec_add_##suffix(type *o, type *a, type *b, int n) { return vec_add_like<type>(o, a, b, n); } \
    extern "C" int vec_power_##suffix(type *o, type *a, type *b, int n);                           \
    extern "C" int vec_power_##suffix(type *o, type *a, type *b, int n) { return vec_power_like<type>(o, a, b, n); } \
    extern "C" int vec_fir_##suffix(type *o, type *a, type *b, int n, int t);                      \
    extern "C" int vec_fir_##suffix(type *o, type *a, type *b, int n, int t)                       \
    {                                                                                              \
        return vec_fir_like<type>(o, a, b, n, t);                                                  \
    }                                                                                              \
    extern "C" void mtx_2Dfir_##suffix(type *o, type *a, const int32_t *k, int n);                 \
    extern "C" void mtx_2Dfir_##suffix(type *o, type *a, const int32_t *k, int n) { mtx_2Dfir_like<type>(o, a, k, n); } \
    extern "C" int mtx_median_##suffix(type *o, type *a, type *b, int n);                          \
    extern "C" int mtx_median_##suffix(type *o, type *a, type *b, int n) { return mtx_median_like<type>(o, a, b, n); } \
    extern "C" int mtx_xp_##suffix(type *o, type *a, int r, int c);                                \
    extern "C" int mtx_xp_##suffix(type *o, type *a, int r, int c) { return mtx_xp_like<type>(o, a, r, c); } \
    extern "C" void masks_##suffix(type *o, type *a, int n);                                       \
    extern "C" void masks_##suffix(type *o, type *a, int n) { masks_like<type>(o, a, n); }

WRAPPERS(byte, vbx_byte_t)
WRAPPERS(ubyte, vbx_ubyte_t)
WRAPPERS(half, vbx_half_t)
WRAPPERS(uhalf, vbx_uhalf_t)
WRAPPERS(word, vbx_word_t)
WRAPPERS(uword, vbx_uword_t)

/* The ports' two calling forms of the initialisation, and the result macros, from C++. */
extern "C" int init_forms(void);
extern "C" int init_forms(void)
{
    int status = VectorBlox_MXP_Initialize("mxp0", "cma") + VectorBlox_MXP_Initialize();
    if (status)
        VBX_TEST_FAIL(status);
    else
        VBX_TEST_PASS();
    return status;
}

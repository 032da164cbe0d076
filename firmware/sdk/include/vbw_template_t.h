/*
 * vbw_template_t.h - "templates" for C (mxp-spec.md section 6.5). Deliberately
 * re-includable: define VBX_TEMPLATE_T as one of the VBX_*SIZE_DEF values, include this
 * header, write code in terms of the macros below, and repeat for another type.
 *
 *   BYTEHALFWORD   the type's suffix: byte half word ubyte uhalf uword
 *   vbx_sp_t       scratchpad element type (vbx_byte_t ...)
 *   vbx_mm_t       host element type (int8_t ...)
 *   T, TB, TH, TW  mode size/sign spellings: the type; D the type with B/H/W sources
 *   BT, HT, WT     B/H/W destination with the type as sources
 *   B, H, W        B/H/W with the type's signedness (BU, HU, WU for unsigned types)
 *   VBX_T(name)    name_<BYTEHALFWORD>
 *   VV(x) SV(x) VE(x) SE(x)   the mode type pasted onto the expansion of x: VV(T) -> VVB
 *
 * The vbx() macros expand their MODE argument before pasting, so vbx(VV(T), ...) works.
 * These object-like macros (T, B, H, W, ...) shadow those identifiers in code that follows.
 */

#define VBX_BYTESIZE_DEF 1
#define VBX_HALFSIZE_DEF 2
#define VBX_WORDSIZE_DEF 4
#define VBX_UBYTESIZE_DEF 11
#define VBX_UHALFSIZE_DEF 12
#define VBX_UWORDSIZE_DEF 14

#ifndef VBW_TEMPLATE_ONCE_
#define VBW_TEMPLATE_ONCE_
#define VBW_TPL_PASTE2_(a, b) a##b
#define VBW_TPL_PASTE_(a, b) VBW_TPL_PASTE2_(a, b)
#define VBW_TPL_PASTE3_(a, b, c) a##b##c
#define VBW_TPL_SUFFIX_(name, suffix) VBW_TPL_PASTE3_(name, _, suffix)
#define VBX_T(name) VBW_TPL_SUFFIX_(name, BYTEHALFWORD)
#define VV(x) VBW_TPL_PASTE_(VV, x)
#define SV(x) VBW_TPL_PASTE_(SV, x)
#define VE(x) VBW_TPL_PASTE_(VE, x)
#define SE(x) VBW_TPL_PASTE_(SE, x)
#define VS(x) VBW_TPL_PASTE_(VS, x)
#endif

#undef BYTEHALFWORD
#undef vbx_sp_t
#undef vbx_mm_t
#undef T
#undef TB
#undef TH
#undef TW
#undef BT
#undef HT
#undef WT
#undef B
#undef H
#undef W

#if !defined(VBX_TEMPLATE_T)
#error "define VBX_TEMPLATE_T (e.g. VBX_BYTESIZE_DEF) before including vbw_template_t.h"
#elif VBX_TEMPLATE_T == VBX_BYTESIZE_DEF
#define BYTEHALFWORD byte
#define vbx_sp_t vbx_byte_t
#define vbx_mm_t int8_t
#define T B
#define TB B
#define TH BH
#define TW BW
#define BT B
#define HT HB
#define WT WB
#define B B
#define H H
#define W W
#elif VBX_TEMPLATE_T == VBX_HALFSIZE_DEF
#define BYTEHALFWORD half
#define vbx_sp_t vbx_half_t
#define vbx_mm_t int16_t
#define T H
#define TB HB
#define TH H
#define TW HW
#define BT BH
#define HT H
#define WT WH
#define B B
#define H H
#define W W
#elif VBX_TEMPLATE_T == VBX_WORDSIZE_DEF
#define BYTEHALFWORD word
#define vbx_sp_t vbx_word_t
#define vbx_mm_t int32_t
#define T W
#define TB WB
#define TH WH
#define TW W
#define BT BW
#define HT HW
#define WT W
#define B B
#define H H
#define W W
#elif VBX_TEMPLATE_T == VBX_UBYTESIZE_DEF
#define BYTEHALFWORD ubyte
#define vbx_sp_t vbx_ubyte_t
#define vbx_mm_t uint8_t
#define T BU
#define TB BU
#define TH BHU
#define TW BWU
#define BT BU
#define HT HBU
#define WT WBU
#define B BU
#define H HU
#define W WU
#elif VBX_TEMPLATE_T == VBX_UHALFSIZE_DEF
#define BYTEHALFWORD uhalf
#define vbx_sp_t vbx_uhalf_t
#define vbx_mm_t uint16_t
#define T HU
#define TB HBU
#define TH HU
#define TW HWU
#define BT BHU
#define HT HU
#define WT WHU
#define B BU
#define H HU
#define W WU
#elif VBX_TEMPLATE_T == VBX_UWORDSIZE_DEF
#define BYTEHALFWORD uword
#define vbx_sp_t vbx_uword_t
#define vbx_mm_t uint32_t
#define T WU
#define TB WBU
#define TH WHU
#define TW WU
#define BT BWU
#define HT HWU
#define WT WU
#define B BU
#define H HU
#define W WU
#else
#error "VBX_TEMPLATE_T is not one of the VBX_*SIZE_DEF values"
#endif

/*
 * vbw_vec_fft_legacy.h - the pieces of the legacy (2016) vbx API that the SDK's FFT sweep
 * (bmark/vbw_vec_fft) was written against and the 2018 API lacks (mxp-spec.md section 7.4),
 * rebuilt on top of the 2018 calls for the port of that program. Only the FFT includes it.
 *
 * What each legacy item becomes here:
 *
 *   VBX_SCRATCHPAD_SIZE   an undefined compile-time constant in 2018: here the real size in
 *   VBX_VECTOR_LANES      bytes / the real lane count, read from the instance descriptor (so
 *                         both are valid only after vbx_test_init()). Other programs declare
 *                         a local `const int VBX_SCRATCHPAD_SIZE`; that is why these are not
 *                         in the SDK headers.
 *   REALCYCLES(t)         accelerator clock cycles in t timestamp ticks: vbx_mxp_cycles(t).
 *   vbx_set_2D(rows, ID, IA, IB)
 *                         the legacy 4-argument form (row count first, then the byte
 *                         increments of D, A, B). vbx_set_2D becomes variadic: 3 arguments
 *                         are the 2018 call, unchanged; 4 arguments record the legacy rows
 *                         and increments in software and touch nothing in the hardware.
 *   vbx_set_vl(vl)        the same call in both APIs. In 2016 it set VL only, and a plain
 *                         vbx() always ran 1-D; the 2018 call also sets ROWS = MATS = 1,
 *                         which keeps plain vbx() 1-D. Here it also records VL for vbx_2D.
 *                         The 2- and 3-argument 2018 forms pass through unchanged.
 *   vbx_2D(MODE, INSTR, D, A, B)
 *                         a 2-D instruction with the legacy rows/increments: emits
 *                         vbx_set_vl(vl, rows) + vbx_set_2D(ID, IA, IB), the instruction,
 *                         then vbx_set_vl(vl) again, so that plain vbx() stays 1-D as it was
 *                         in 2016 (the shim mxp-spec.md section 7.4 suggests).
 *
 * Not provided (the port does not need them): the legacy mode-name order (2016 two-letter
 * sizes were source then destination; the port is written with the 2018 spelling, e.g.
 * legacy VVWH = 2018 VVHW, and says so where it matters), the legacy shift operand order
 * (2016 `vbx(SVH, VSHR, d, 1, v)` is written as the 2018 VS form `vbx(VSH, VSHR, d, v, 1)`),
 * vbx_3D, <sys/alt_timestamp.h> (the Nios timer; the port uses vbx_port.h's timestamps) and
 * vbx_vec_rev.h / vbx_vector_reverse_half_fast (see vbw_vec_fft.c).
 */
#ifndef VBW_VEC_FFT_LEGACY_H
#define VBW_VEC_FFT_LEGACY_H

#include "vbx.h"
#include "vbx_port.h"

#define VBX_SCRATCHPAD_SIZE (VBX_GET_THIS_MXP()->scratchpad_size)
#define VBX_VECTOR_LANES (VBX_GET_THIS_MXP()->vector_lanes)
#define REALCYCLES(t) vbx_mxp_cycles(t)

/* The legacy 2-D state, kept in software (one accelerator, one thread). */
typedef struct {
    int vl;
    int rows;
    int id, ia, ib;
} vbx_legacy_2D_t;

extern vbx_legacy_2D_t vbx_legacy_2D_state;

/* The 2018 calls, captured before the names are redefined below. */
static inline void vbx_set_vl_2018_(int vl, int rows, int mats)
{
    vbx_set_vl(vl, rows, mats);
}

static inline void vbx_set_2D_2018_(int id, int ia, int ib)
{
    vbx_set_2D(id, ia, ib);
}

static inline void vbx_legacy_set_vl_1_(int vl)
{
    vbx_legacy_2D_state.vl = vl;
    vbx_set_vl_2018_(vl, 1, 1);
}

static inline void vbx_legacy_set_vl_2_(int vl, int rows)
{
    vbx_legacy_2D_state.vl = vl;
    vbx_set_vl_2018_(vl, rows, 1);
}

static inline void vbx_legacy_set_vl_3_(int vl, int rows, int mats)
{
    vbx_legacy_2D_state.vl = vl;
    vbx_set_vl_2018_(vl, rows, mats);
}

static inline void vbx_legacy_set_2D_4_(int rows, int id, int ia, int ib)
{
    vbx_legacy_2D_state.rows = rows;
    vbx_legacy_2D_state.id = id;
    vbx_legacy_2D_state.ia = ia;
    vbx_legacy_2D_state.ib = ib;
}

/* Before a legacy 2-D instruction: the hardware gets the legacy rows and increments. */
static inline void vbx_legacy_enter_2D_(void)
{
    const vbx_legacy_2D_t *s = &vbx_legacy_2D_state;
    vbx_set_vl_2018_(s->vl, s->rows, 1);
    vbx_set_2D_2018_(s->id, s->ia, s->ib);
}

/* After it: back to 1-D, so that the next plain vbx() runs 1-D as in 2016. */
static inline void vbx_legacy_leave_2D_(void)
{
    vbx_set_vl_2018_(vbx_legacy_2D_state.vl, 1, 1);
}

#define VBX_LEGACY_PICK4_(a, b, c, d, name, ...) name

#undef vbx_set_vl
#define vbx_set_vl(...)                                                                     \
    VBX_LEGACY_PICK4_(__VA_ARGS__, ~, vbx_legacy_set_vl_3_, vbx_legacy_set_vl_2_,           \
                      vbx_legacy_set_vl_1_, ~)(__VA_ARGS__)

#undef vbx_set_2D
#define vbx_set_2D(...)                                                                     \
    VBX_LEGACY_PICK4_(__VA_ARGS__, vbx_legacy_set_2D_4_, vbx_set_2D_2018_, ~, ~, ~)(__VA_ARGS__)

#define vbx_2D(mode, instr, dest, srca, srcb)                                                \
    do {                                                                                    \
        vbx_legacy_enter_2D_();                                                             \
        vbx(mode, instr, dest, srca, srcb);                                                 \
        vbx_legacy_leave_2D_();                                                             \
    } while (0)

#endif

/*
 * vbw_mtx_xp.cpp - vbxware: matrix transpose on the MXP, for the six element types (C++
 * templates, as the SDK's vbw_mtx_xp and vbw_mtx_xp_ext; written with the vbxx layer).
 *
 * In the scratchpad a transpose is one 3-D VMOV with a vector length of 1: the rows of the
 * instruction walk down an output row (destination step = the output row length, source
 * step = 1 element), its matrices walk down the output columns (destination step 1, source
 * step = the input row length). The move is the SDK's two-operand vbxx(VMOV, d, a): a VE VMOV.
 *
 * For matrices in external memory (vbw_mtx_xp_ext_<type>) the work is sized by the free
 * scratchpad, which must hold an input and an output buffer:
 *   - fewer than 16 elements: not worth the MXP; the CPU transposes after a sync;
 *   - one row or one column: the transpose is a copy, a DMA round trip;
 *   - the whole matrix fits: DMA in, transpose, DMA out;
 *   - otherwise tiles: whole columns if at least one column fits, else whole rows, else
 *     power-of-two squares; per tile a 2-D DMA in, a transpose, a 2-D DMA out. The MXP's
 *     interlocks order each tile's DMA-in after the previous transpose's reads of the input
 *     buffer, and its transpose after the previous DMA-out of the output buffer.
 * The vector paths end with vbx_sync(), as the SDK routine's do (its callers sync again).
 * (The SDK's merge-network tile transpose needs 8 or more lanes; it is not ported.)
 *
 * The templates are in vbw_mtx_xp_template.hpp (included by vbw_mtx_xp.h in C++, as the SDK's);
 * this file defines the extern "C" functions. The injected-bug switch BUG_NO_ROUTINE_SYNC
 * (apps/bugs/vbw_mtx_xp_no_routine_sync.cpp, which compiles its own copy of this file, hence
 * of the templates) leaves out that final vbx_sync().
 */
#include "vbx.h"
#include "vbw_exit_codes.h"
#include "vbw_mtx_xp.h"

/* ---- the extern "C" functions: in the scratchpad, then in external memory ---------------- */

/* The C entry points, one per element type (vbx_types.h). */
#define VBW_MTX_XP_C_(suffix, Elem_) \
    extern "C" int vbw_mtx_xp_##suffix(Elem_ *v_out, Elem_ *v_in, const int rows, const int cols) \
    { \
        return vbw_mtx_xp(v_out, v_in, rows, cols); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_MTX_XP_C_)
#undef VBW_MTX_XP_C_

/* The C entry points, one per element type (vbx_types.h). */
#define VBW_MTX_XP_EXT_C_(suffix, Elem_) \
    extern "C" int vbw_mtx_xp_ext_##suffix(Elem_ *out, Elem_ *in, const int rows, const int cols) \
    { \
        return vbw_mtx_xp_ext<Elem_>(out, in, rows, cols); \
    }
VBX_FOR_EACH_ELEMENT_TYPE_(VBW_MTX_XP_EXT_C_)
#undef VBW_MTX_XP_EXT_C_

/*
 * vbx.h - the vbx API of the VectorBlox MXP SDK, as an independent work-alike for mxpsim's
 * MXP-style accelerator (firmware/sdk/README.md; facts from mxp-spec.md).
 *
 * Everything here writes 32-bit command words to the memory-mapped instruction port
 * (MXPSIM_MXP_PORT, a plain `sw` per word, in order, to the port base) and reads replies with
 * a plain `lw` from it (section 2.1). Scratchpad addresses in commands are CPU pointers into
 * the scratchpad window (MXPSIM_SCRATCHPAD + offset); external DMA addresses are physical
 * DRAM addresses (VBX_DMA_ADDR). All calls are posted except vbx_sync(), the getters and
 * vbx_get_mask_status(), which wait for their reply.
 *
 * Build settings (define before including, or with -D):
 *   VBX_SKIP_ALL_CHECKS     1 (default): vbx_sp_malloc is the _nodebug variant
 *   VBX_DEBUG_LEVEL         3 (default): VBX_PRINTF prints when non-zero
 *   VBX_CPU_DCACHE_LINE_SIZE 16 (default): vbx_shared_malloc padding (vbx_port.h)
 *   VBX_TEST_EOT            1 (default): VBX_TEST_END writes 0x04 as the hardware SDK does
 *   VBX_PORT_CAPTURE        (off): route port words to vbx_capture_write/read (SDK checks)
 * VBX_SIMULATOR is deliberately left undefined: this is a (simulated) hardware target, so
 * SDK code takes its hardware paths (e.g. libfixmath's VCUSTOM0/1 instructions).
 */
#ifndef VBX_H
#define VBX_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mxpsim.h"
#include "vbx_modes.h"
#include "vbx_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- build settings ------------------------------------------------------------------ */

#ifndef VBX_SKIP_ALL_CHECKS
#define VBX_SKIP_ALL_CHECKS 1
#endif
#ifndef VBX_DEBUG_LEVEL
#define VBX_DEBUG_LEVEL 3
#endif
#define VBX_USE_GLOBAL_MXP_PTR 1

/* ---- word-0 encoding (section 2.2) ----------------------------------------------------- */

#define VBX_OPCODE_SHIFT 0
#define SIGN_DEST_BIT 6
#define SIGN_A_BIT 7
#define SIGN_B_BIT 8
#define DEST_SIZE_RIGHT 9
#define A_SIZE_RIGHT 11
#define B_SIZE_RIGHT 13
#define ENUM_BIT 15
#define SCALAR_BIT 16
#define MASKED_BIT 17
#define ACCUM_BIT 18

#define VBX_OPSIZE_BYTE 0
#define VBX_OPSIZE_HALF 1
#define VBX_OPSIZE_WORD 2

#define VBX_DEST_SIGNED (1u << SIGN_DEST_BIT)
#define VBX_A_SIGNED (1u << SIGN_A_BIT)
#define VBX_B_SIGNED (1u << SIGN_B_BIT)
#define VBX_BYTE_DEST (VBX_OPSIZE_BYTE << DEST_SIZE_RIGHT)
#define VBX_HALF_DEST (VBX_OPSIZE_HALF << DEST_SIZE_RIGHT)
#define VBX_WORD_DEST (VBX_OPSIZE_WORD << DEST_SIZE_RIGHT)
#define VBX_BYTE_A (VBX_OPSIZE_BYTE << A_SIZE_RIGHT)
#define VBX_HALF_A (VBX_OPSIZE_HALF << A_SIZE_RIGHT)
#define VBX_WORD_A (VBX_OPSIZE_WORD << A_SIZE_RIGHT)
#define VBX_BYTE_B (VBX_OPSIZE_BYTE << B_SIZE_RIGHT)
#define VBX_HALF_B (VBX_OPSIZE_HALF << B_SIZE_RIGHT)
#define VBX_WORD_B (VBX_OPSIZE_WORD << B_SIZE_RIGHT)

#define VBX_MODE_VV 0x00000u
#define VBX_MODE_VE 0x08000u
#define VBX_MODE_SV 0x10000u
#define VBX_MODE_SE 0x18000u
/* Not a hardware bit: marks the VS pseudo-mode constants (M_VS...), emulated by the API. */
#define VBX_MODE_VS_PSEUDO 0x80000000u

#define MOD_NONE 0u
#define MOD_MASKED (1u << MASKED_BIT)
#define MOD_ACC (1u << ACCUM_BIT)
#define MOD_MASKED_ACC (MOD_MASKED | MOD_ACC)
/* Only meaningful on VBX_OP_SET_VL. */
#define MOD_2D (1u << 18)
#define MOD_3D (1u << 17)

/* Control commands (opcodes 0-3, section 2.4). */
#define VBX_OP_DMA_TO_HOST 0u
#define VBX_OP_DMA_TO_VECTOR 1u
#define VBX_OP_SET_VL 2u
#define VBX_OP_EXT (MOD_MASKED | MOD_ACC)
#define VBX_PARAM_ADDR_SHIFT 6
#define VBX_OP_GET_PARAM (VBX_OP_EXT | 0u)
#define VBX_OP_SET_PARAM (VBX_OP_EXT | 1u)
#define VBX_OP_SYNC (VBX_OP_EXT | 2u)
#define VBX_OP_GET_MASK (VBX_OP_EXT | 3u)

/* Hardware opcodes (bits 5:0). */
#define VMOV_I 4
#define VAND_I 5
#define VOR_I 6
#define VXOR_I 7
#define VADD_I 8
#define VSUB_I 9
#define VADDC_I 10
#define VSUBB_I 11
#define VMUL_I 12
#define VMULLO_I 12
#define VMULHI_I 13
#define VMULH_I 13
#define VMULFXP_I 14
#define VSUBFXP_I 15
#define VSHL_I 16
#define VSHR_I 17
#define VSLT_I 20
#define VSGT_I 21
#define VCMV_LEZ_I 24
#define VCMV_GTZ_I 25
#define VCMV_LTZ_I 26
#define VCMV_FS_I 26
#define VCMV_GEZ_I 27
#define VCMV_FC_I 27
#define VCMV_Z_I 28
#define VCMV_NZ_I 29
#define VADDFXP_I 30
#define VABSDIFF_I 31
#define VSET_MSK_LEZ_I 40
#define VSET_MSK_GTZ_I 41
#define VSET_MSK_LTZ_I 42
#define VSET_MSK_FS_I 42
#define VSET_MSK_GEZ_I 43
#define VSET_MSK_FC_I 43
#define VSET_MSK_Z_I 44
#define VSET_MSK_NZ_I 45
#define VCUSTOM_I 48
#define VCUSTOM0_I 48
#define VCUSTOM1_I 49
#define VCUSTOM2_I 50
#define VCUSTOM3_I 51
#define VCUSTOM4_I 52
#define VCUSTOM5_I 53
#define VCUSTOM6_I 54
#define VCUSTOM7_I 55
#define VCUSTOM8_I 56
#define VCUSTOM9_I 57
#define VCUSTOM10_I 58
#define VCUSTOM11_I 59
#define VCUSTOM12_I 60
#define VCUSTOM13_I 61
#define VCUSTOM14_I 62
#define VCUSTOM15_I 63

/* Control registers (section 1.3). */
#define GET_VL 0
#define GET_ROWS 1
#define GET_ID 2
#define GET_IA 3
#define GET_IB 4
#define GET_ID2D GET_ID
#define GET_IA2D GET_IA
#define GET_IB2D GET_IB
#define GET_MATS 5
#define GET_ID3D 6
#define GET_IA3D 7
#define GET_IB3D 8
#define VBX_REG_MXPCPU 16
#define MAX_MXP_REG 32

/* ---- helpers ----------------------------------------------------------------------------- */

#define VBX_PAD_UP(x, a) (((x) + ((a) - 1)) & ~((a) - 1))
#define VBX_PAD_DN(x, a) ((x) & ~((a) - 1))
#define VBX_IS_MISALIGNED(x, a) (((x) & ((a) - 1)) != 0)
#define VBX_IS_ALIGNED(x, a) (!VBX_IS_MISALIGNED(x, a))

#if VBX_DEBUG_LEVEL
#define VBX_PRINTF(...) printf(__VA_ARGS__)
#else
#define VBX_PRINTF(...) ((void)0)
#endif

#if VBX_SKIP_ALL_CHECKS
#define VBX_EXIT(err) exit(err)
#else
#define VBX_EXIT(err)                                                                      \
    do {                                                                                   \
        printf("\nVBX FATAL ERROR: exiting with code %d\n", (int)(err));                   \
        exit(err);                                                                         \
    } while (0)
#endif

#define VBX_FATAL(line, file, err)                                                         \
    do {                                                                                   \
        VBX_PRINTF("\nVBX FATAL ERROR: line %d of %s: error %d\n", (int)(line), (file),    \
                   (int)(err));                                                            \
        VBX_EXIT(err);                                                                     \
    } while (0)

/* ---- the instance descriptor --------------------------------------------------------- */

extern vbx_mxp_t *vbx_mxp_ptr;
#define VBX_GET_THIS_MXP() (vbx_mxp_ptr)
#define VBX_SET_THIS_MXP(p) (vbx_mxp_ptr = (p))

/* Completes a filled-in descriptor: empty sp-stack, sp at the scratchpad start, publishes
 * it as VBX_GET_THIS_MXP(), sets init. Returns 0. */
int _vbx_init(vbx_mxp_t *mxp);
/* Fills the library's descriptor from the system-control registers and runs _vbx_init
 * (vbx_test_init() calls it). Returns 0. The SDK's ports disagree on its parameters: ORCA and
 * HPS call it with none, the RISC-V and Linux ports with the MXP and CMA device names (which
 * this machine, with its one MXP, ignores). Both calls compile: in C++ through default
 * arguments, in C through a macro that counts the arguments; the function itself (and its
 * address) has the two-argument form. */
#ifdef __cplusplus
int VectorBlox_MXP_Initialize(const char *mxp_dev = 0, const char *cma_dev = 0);
#else
int VectorBlox_MXP_Initialize(const char *mxp_dev, const char *cma_dev);
/* Picks the form by where the list lands: two arguments select the function itself, none
 * (or one, which then fails to compile) the zero form; standard C99, no comma elision. */
#define VBX_MXP_INITIALIZE_PICK_(a, b, c, form, ...) form
#define VBX_MXP_INITIALIZE_NONE_(...) VectorBlox_MXP_Initialize(0, 0 __VA_ARGS__)
#define VectorBlox_MXP_Initialize(...)                                                      \
    VBX_MXP_INITIALIZE_PICK_(__VA_ARGS__, VectorBlox_MXP_Initialize_takes_no_or_two_arguments, \
                             VectorBlox_MXP_Initialize, VBX_MXP_INITIALIZE_NONE_, )        \
    (__VA_ARGS__)
#endif

/* ---- the instruction port -------------------------------------------------------------- */

#define VBX_INSTR_PORT ((volatile uint32_t *)MXPSIM_MXP_PORT)
/* Keeps the compiler from moving memory accesses across a command (the CPU's own
 * accesses before a command must be issued before it, its reads after a reply after it). */
#define VBX_COMPILER_BARRIER() __asm__ volatile("" ::: "memory")

#ifdef VBX_PORT_CAPTURE
void vbx_capture_write(uint32_t word);
uint32_t vbx_capture_read(void);
#define VBX_PORT_WRITE_(w) vbx_capture_write(w)
#define VBX_PORT_READ_() vbx_capture_read()
#else
#define VBX_PORT_WRITE_(w) (*VBX_INSTR_PORT = (w))
#define VBX_PORT_READ_() (*VBX_INSTR_PORT)
#endif

static inline void vbx_cmd4_(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3)
{
    VBX_COMPILER_BARRIER();
    VBX_PORT_WRITE_(w0);
    VBX_PORT_WRITE_(w1);
    VBX_PORT_WRITE_(w2);
    VBX_PORT_WRITE_(w3);
}

static inline void vbx_cmd2_(uint32_t w0, uint32_t w1)
{
    VBX_COMPILER_BARRIER();
    VBX_PORT_WRITE_(w0);
    VBX_PORT_WRITE_(w1);
}

/* A one-word command with a reply: the load stalls until the reply is ready. */
static inline uint32_t vbx_cmd_reply_(uint32_t w0)
{
    VBX_COMPILER_BARRIER();
    VBX_PORT_WRITE_(w0);
    uint32_t reply = VBX_PORT_READ_();
    VBX_COMPILER_BARRIER();
    return reply;
}

/* Any pointer or integer argument as a 32-bit command word. */
#define VBX_WORD_(x) ((uint32_t)(uintptr_t)(x))

/* ---- vector instructions (sections 2.6-2.8) ----------------------------------------------- */

/* The hardware opcode of a vinstr_t value. Folds to a constant for a constant argument. */
static inline uint32_t vbx_hw_opcode(vinstr_t instr)
{
    uint32_t e = (uint32_t)instr;
    return e < VSLT ? e + 4 : e < VCMV_LEZ ? e + 6 : e < VSET_MSK_LEZ ? e + 8 : e < VCUSTOM0 ? e + 16 : e + 18;
}

/* The SV layout that emulates a VS mode: D as named, A (the scalar) as wide as the wider of
 * D and the vector with the scalar's sign letter, B = the vector operand. */
static inline uint32_t vbx_vs_as_sv_(uint32_t vs, int scalar_signed)
{
    uint32_t dsz = (vs >> DEST_SIZE_RIGHT) & 3, vsz = (vs >> A_SIZE_RIGHT) & 3;
    uint32_t wsz = dsz > vsz ? dsz : vsz;
    return VBX_MODE_SV | (vs & VBX_DEST_SIGNED) | (scalar_signed ? VBX_A_SIGNED : 0) |
           ((vs & VBX_A_SIGNED) ? VBX_B_SIGNED : 0) | (dsz << DEST_SIZE_RIGHT) | (wsz << A_SIZE_RIGHT) |
           (vsz << B_SIZE_RIGHT);
}

/* vbx(VS..., instr, d, vector, scalar): issued as an SV instruction (section 2.8). */
static inline void vbx_vs_(uint32_t vs, vinstr_t instr, uint32_t mods, uint32_t d, uint32_t v, uint32_t s)
{
    int ssigned = (vs & VBX_B_SIGNED) != 0;
    vinstr_t op = instr;
    uint32_t a = s;
    switch (instr) {
    case VSUB:
    case VSUBFXP:
    case VSUBB:
        op = VADD;
        a = 0u - s;
        break;
    case VSLT:
        op = VSGT;
        break;
    case VSGT:
        op = VSLT;
        break;
    case VSHL:
        op = VMUL;
        a = s < 32 ? 1u << s : 0u;
        break;
    case VSHR:
        if (s == 0) {
            op = VADD;
            a = 0;
        } else {
            /* v >> s = high W bits of v * 2^(W-s), the multiplier taken unsigned. */
            uint32_t dsz = (vs >> DEST_SIZE_RIGHT) & 3, vsz = (vs >> A_SIZE_RIGHT) & 3;
            uint32_t w = 8u << (dsz > vsz ? dsz : vsz);
            op = VMULHI;
            a = s <= w ? (uint32_t)((1ull << (w - s)) & 0xffffffffu) : 0u;
            ssigned = 0;
        }
        break;
    default:
        /* VCUSTOMn has no VS form; everything else keeps its opcode with the operands swapped. */
        assert(instr < VCUSTOM0);
        break;
    }
    vbx_cmd4_(vbx_vs_as_sv_(vs, ssigned) | mods | vbx_hw_opcode(op), a, v, d);
}

static inline void vbx_issue_(uint32_t mode, vinstr_t instr, uint32_t mods, uint32_t d, uint32_t a, uint32_t b)
{
    if (mode & VBX_MODE_VS_PSEUDO) {
        vbx_vs_(mode, instr, mods, d, a, b);
        return;
    }
    if (mode & VBX_MODE_VE) /* enumerated B: the B word is not used */
        b = 0;
    vbx_cmd4_(mode | mods | vbx_hw_opcode(instr), a, b, d);
}

static inline void vbx_setup_mask_(uint32_t mode, vinstr_t test, uint32_t mods, uint32_t src)
{
    /* TEST is a VCMV_* name (a VSET_MSK_* name is accepted too); only SRC is examined. */
    vinstr_t op = test < VSET_MSK_LEZ ? (vinstr_t)(test + (VSET_MSK_LEZ - VCMV_LEZ)) : test;
    assert(op >= VSET_MSK_LEZ && op <= VSET_MSK_NZ);
    if (mode & VBX_MODE_VS_PSEUDO)
        mode = vbx_vs_as_sv_(mode, (mode & VBX_B_SIGNED) != 0);
    uint32_t a = (mode & VBX_MODE_SV) ? 0 : src;
    uint32_t b = (mode & VBX_MODE_VE) ? 0 : src;
    vbx_cmd4_(mode | mods | vbx_hw_opcode(op), a, b, src);
}

/* MODE is fully macro-expanded (VV(T) -> VVB) before M_ is pasted onto it. */
#define VBX_PASTE_(a, b) a##b
#define VBX_MODE_BITS_(mode) VBX_PASTE_(M_, mode)
#define VBX_OP_(mods, mode, instr, dest, srca, srcb)                                        \
    vbx_issue_(VBX_MODE_BITS_(mode), (instr), (mods), VBX_WORD_(dest), VBX_WORD_(srca), VBX_WORD_(srcb))

#define vbx(mode, instr, dest, srca, srcb) VBX_OP_(MOD_NONE, mode, instr, dest, srca, srcb)
#define vbx_acc(mode, instr, dest, srca, srcb) VBX_OP_(MOD_ACC, mode, instr, dest, srca, srcb)
#define vbx_masked(mode, instr, dest, srca, srcb) VBX_OP_(MOD_MASKED, mode, instr, dest, srca, srcb)
#define vbx_masked_acc(mode, instr, dest, srca, srcb) VBX_OP_(MOD_MASKED_ACC, mode, instr, dest, srca, srcb)

#define vbx_setup_mask(mode, test, src) vbx_setup_mask_(VBX_MODE_BITS_(mode), (test), MOD_NONE, VBX_WORD_(src))
#define vbx_setup_mask_masked(mode, test, src)                                              \
    vbx_setup_mask_(VBX_MODE_BITS_(mode), (test), MOD_MASKED, VBX_WORD_(src))

/* Raw form: MODE and INSTR must be literal tokens (M_<MODE>, <INSTR>_I); no VS. */
#define vbxasm(modifier, mode, instr, dest, srca, srcb)                                      \
    vbx_cmd4_((uint32_t)(modifier) | M_##mode | instr##_I, VBX_WORD_(srca), VBX_WORD_(srcb), VBX_WORD_(dest))

/* ---- vector length, 2D/3D, registers (section 1.3) ---------------------------------------- */

static inline void vbx_set_vl_3_(uint32_t vl, uint32_t rows, uint32_t mats)
{
    vbx_cmd4_(VBX_OP_SET_VL, vl, rows, mats);
}
#define vbx_set_vl_1_(vl) vbx_set_vl_3_((vl), 1, 1)
#define vbx_set_vl_2_(vl, rows) vbx_set_vl_3_((vl), (rows), 1)
#define VBX_PICK3_(a, b, c, name, ...) name
/* vbx_set_vl(n), vbx_set_vl(n, rows), vbx_set_vl(n, rows, mats): always writes all three. */
#define vbx_set_vl(...) VBX_PICK3_(__VA_ARGS__, vbx_set_vl_3_, vbx_set_vl_2_, vbx_set_vl_1_, ~)(__VA_ARGS__)

/* Signed byte increments between rows of D, A, B (sent in the order IA, IB, ID). */
#define vbx_set_2D(id, ia, ib) vbx_cmd4_(VBX_OP_SET_VL | MOD_2D, VBX_WORD_(ia), VBX_WORD_(ib), VBX_WORD_(id))
/* Likewise between matrices. */
#define vbx_set_3D(id3, ia3, ib3) vbx_cmd4_(VBX_OP_SET_VL | MOD_3D, VBX_WORD_(ia3), VBX_WORD_(ib3), VBX_WORD_(id3))

static inline uint32_t vbx_get_reg_(uint32_t reg)
{
    return vbx_cmd_reply_(VBX_OP_GET_PARAM | (reg << VBX_PARAM_ADDR_SHIFT));
}

/* Deprecated raw register access. vbx_get_reg stores the value through the pointer. */
#define vbx_set_reg(reg, value) vbx_cmd2_(VBX_OP_SET_PARAM | ((uint32_t)(reg) << VBX_PARAM_ADDR_SHIFT), VBX_WORD_(value))
#define vbx_get_reg(reg, pvalue) ((void)(*(pvalue) = vbx_get_reg_((uint32_t)(reg))))

/* Read-backs: one round trip per register; values are the masked raw register contents. */
#define vbx_get_vl_1_(pvl) ((void)(*(pvl) = vbx_get_reg_(GET_VL)))
#define vbx_get_vl_2_(pvl, prows) (vbx_get_vl_1_(pvl), (void)(*(prows) = vbx_get_reg_(GET_ROWS)))
#define vbx_get_vl_3_(pvl, prows, pmats) (vbx_get_vl_2_(pvl, prows), (void)(*(pmats) = vbx_get_reg_(GET_MATS)))
#define vbx_get_vl(...) VBX_PICK3_(__VA_ARGS__, vbx_get_vl_3_, vbx_get_vl_2_, vbx_get_vl_1_, ~)(__VA_ARGS__)
#define vbx_get_2D(pid, pia, pib)                                                           \
    ((void)(*(pid) = vbx_get_reg_(GET_ID)), (void)(*(pia) = vbx_get_reg_(GET_IA)),          \
     (void)(*(pib) = vbx_get_reg_(GET_IB)))
#define vbx_get_3D(pid3, pia3, pib3)                                                        \
    ((void)(*(pid3) = vbx_get_reg_(GET_ID3D)), (void)(*(pia3) = vbx_get_reg_(GET_IA3D)),    \
     (void)(*(pib3) = vbx_get_reg_(GET_IB3D)))

/* Mask status (section 3.9): bit 31 = stale, bits 30..0 non-zero = some element enabled.
 * Does not wait for an outstanding mask set-up (pair it with vbx_sync()). */
#define vbx_get_mask_status(pstatus) ((void)(*(pstatus) = vbx_cmd_reply_(VBX_OP_GET_MASK)))

/* Blocks until every earlier vector instruction and DMA transfer has completed. */
static inline void vbx_sync(void)
{
    (void)vbx_cmd_reply_(VBX_OP_SYNC);
}

/* ---- DMA (section 4) -------------------------------------------------------------------------- */

/* The physical DRAM address the DMA engine uses for a CPU pointer (cached or uncached alias;
 * anything else is left as is). */
static inline uint32_t vbx_dma_addr_(uint32_t x)
{
    return x >= MXPSIM_UNCACHED_ALIAS ? x - MXPSIM_UNCACHED_ALIAS + MXPSIM_DRAM_BASE : x;
}

static inline void vbx_dma_to_vector_(uint32_t sp, uint32_t ext, uint32_t nbytes)
{
    vbx_cmd4_(VBX_OP_DMA_TO_VECTOR, vbx_dma_addr_(ext), sp, nbytes);
}

static inline void vbx_dma_to_host_(uint32_t ext, uint32_t sp, uint32_t nbytes)
{
    vbx_cmd4_(VBX_OP_DMA_TO_HOST, vbx_dma_addr_(ext), sp, nbytes);
}

/* One 2D transfer: the hardware form when the scratchpad stride is at least the row length,
 * otherwise (negative, zero or overlapping scratchpad rows) one 1D request per row. */
static inline void vbx_dma_2D_(uint32_t op, uint32_t ext, uint32_t sp, uint32_t row_len, int32_t rows,
                               int32_t ext_inc, int32_t sp_inc)
{
    uint32_t phys = vbx_dma_addr_(ext);
    if (rows <= 0)
        return;
    if (sp_inc < (int32_t)row_len) {
        for (int32_t r = 0; r < rows; r++)
            vbx_cmd4_(op, phys + (uint32_t)(r * ext_inc), sp + (uint32_t)(r * sp_inc), row_len);
        return;
    }
    vbx_cmd4_(VBX_OP_DMA_TO_VECTOR | VBX_MODE_SE, (uint32_t)sp_inc, (uint32_t)rows, (uint32_t)(rows * sp_inc));
    vbx_cmd4_(VBX_OP_DMA_TO_HOST | VBX_MODE_SV, (uint32_t)ext_inc, 0, 0);
    vbx_cmd4_(op | MOD_ACC, phys, sp, row_len);
}

/* External memory -> scratchpad, nbytes bytes. */
#define vbx_dma_to_vector(sp_dst, ext_src, nbytes)                                          \
    vbx_dma_to_vector_(VBX_WORD_(sp_dst), VBX_WORD_(ext_src), (uint32_t)(nbytes))
/* Scratchpad -> external memory. */
#define vbx_dma_to_host(ext_dst, sp_src, nbytes)                                            \
    vbx_dma_to_host_(VBX_WORD_(ext_dst), VBX_WORD_(sp_src), (uint32_t)(nbytes))
/* rows rows of row_bytes; strides are signed byte distances between row starts. */
#define vbx_dma_to_vector_2D(sp_dst, ext_src, row_bytes, rows, sp_stride, ext_stride)        \
    vbx_dma_2D_(VBX_OP_DMA_TO_VECTOR, VBX_WORD_(ext_src), VBX_WORD_(sp_dst), (uint32_t)(row_bytes), \
                (int32_t)(rows), (int32_t)(ext_stride), (int32_t)(sp_stride))
#define vbx_dma_to_host_2D(ext_dst, sp_src, row_bytes, rows, ext_stride, sp_stride)          \
    vbx_dma_2D_(VBX_OP_DMA_TO_HOST, VBX_WORD_(ext_dst), VBX_WORD_(sp_src), (uint32_t)(row_bytes), \
                (int32_t)(rows), (int32_t)(ext_stride), (int32_t)(sp_stride))

/* ---- scratchpad allocation (section 1.2): software only ------------------------------------ */

/* Says once, on stderr, that the scratchpad was asked for before the MXP was initialised
 * (the SDK returns NULL without a word; the program then fails far from the cause). */
void vbx_sp_malloc_uninitialised_(void);

/* A real function, never inlined or cloned (noipa), so that race reports can name scratchpad
 * blocks by their allocation (mxpsim watches its entry and return, as it does malloc's). */
__attribute__((noipa, unused)) static vbx_void_t *vbx_sp_malloc_nodebug(size_t num_bytes)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    if (!mxp) {
        vbx_sp_malloc_uninitialised_();
        return NULL;
    }
    if (num_bytes == 0)
        return NULL;
    size_t granule = (size_t)mxp->scratchpad_alignment_bytes;
    size_t free_bytes = (size_t)((char *)mxp->scratchpad_end - (char *)mxp->sp);
    if (num_bytes > free_bytes)
        return NULL;
    size_t padded = VBX_PAD_UP(num_bytes, granule);
    if (padded > free_bytes)
        return NULL;
    vbx_void_t *p = mxp->sp;
    mxp->sp = (char *)p + padded;
    return p;
}

/* Checked variant (VBX_SKIP_ALL_CHECKS=0): fatal without _vbx_init; n == 0 returns sp. */
static inline vbx_void_t *vbx_sp_malloc_debug(int line, const char *file, size_t num_bytes)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    if (!mxp || !mxp->init)
        VBX_FATAL(line, file, -1);
    if (num_bytes == 0)
        return mxp->sp;
    return vbx_sp_malloc_nodebug(num_bytes);
}

#if VBX_SKIP_ALL_CHECKS
#define vbx_sp_malloc(num_bytes) vbx_sp_malloc_nodebug(num_bytes)
#else
#define vbx_sp_malloc(num_bytes) vbx_sp_malloc_debug(__LINE__, __FILE__, (num_bytes))
#endif

/* Everything allocated is released, and the sp-stack emptied. */
#define vbx_sp_free()                                                                       \
    do {                                                                                    \
        vbx_mxp_t *vbx_sp_free_mxp_ = VBX_GET_THIS_MXP();                                   \
        vbx_sp_free_mxp_->sp = vbx_sp_free_mxp_->scratchpad_addr;                           \
        vbx_sp_free_mxp_->spstack_top = 0;                                                  \
    } while (0)

static inline void vbx_sp_push(void)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
#if !VBX_SKIP_ALL_CHECKS
    if (mxp->spstack_top >= mxp->spstack_max)
        VBX_FATAL(__LINE__, __FILE__, -1);
#endif
    mxp->spstack[mxp->spstack_top++] = mxp->sp;
}

static inline void vbx_sp_pop(void)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
#if !VBX_SKIP_ALL_CHECKS
    if (mxp->spstack_top <= 0)
        VBX_FATAL(__LINE__, __FILE__, -1);
#endif
    mxp->sp = mxp->spstack[--mxp->spstack_top];
}

static inline vbx_void_t *vbx_sp_get(void) { return VBX_GET_THIS_MXP()->sp; }
static inline void vbx_sp_set(vbx_void_t *p) { VBX_GET_THIS_MXP()->sp = p; }
static inline int vbx_sp_getused(void)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    return (int)((char *)mxp->sp - (char *)mxp->scratchpad_addr);
}
static inline int vbx_sp_getfree(void)
{
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    return (int)((char *)mxp->scratchpad_end - (char *)mxp->sp);
}

#ifdef __cplusplus
}
#endif

#include "vbx_port.h"

#ifndef __cplusplus
/* The SDK's helper (mxp-spec.md 2.9.2): a mask set-up on SRC in the SV mode of its element
 * type (SVBS, SVBU, SVHS, SVHU, SVWS or SVWU); MASKED is empty or _masked. (C++: vbxx.hpp.) */
#define VBX_SETUP_MASK_MODS_ MOD_NONE
#define VBX_SETUP_MASK_MODS__masked MOD_MASKED
#define _vbxx_setup_mask(INSTR, SRC, MASKED)                                                 \
    vbx_setup_mask_(_Generic(*(SRC), vbx_byte_t: M_SVBS, vbx_ubyte_t: M_SVBU, vbx_half_t: M_SVHS, \
                             vbx_uhalf_t: M_SVHU, vbx_word_t: M_SVWS, vbx_uword_t: M_SVWU),     \
                    (INSTR), VBX_SETUP_MASK_MODS_##MASKED, VBX_WORD_(SRC))
#endif

/* C++: every C declaration above has C linkage; the C++ layer follows, as in the SDK's
 * vbx.h (vbxx.hpp: vbxx, vbxx_acc, vbxx_masked, vbxx_masked_acc, vbxx_setup_mask, with the
 * mode inferred from the operand types, section 2.9). */
#ifdef __cplusplus
#include "vbxx.hpp"
#endif

#endif

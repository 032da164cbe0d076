/*
 * vbx_types.h - scratchpad element types, the instruction enumeration and the MXP
 * instance descriptor of the vbx API (mxpsim work-alike of the VectorBlox SDK; see
 * firmware/sdk/README.md and mxp-spec.md sections 1.1 and 2.3).
 */
#ifndef VBX_TYPES_H
#define VBX_TYPES_H

#include <stdint.h>

/* Scratchpad data. int32_t is `long` on rv32/ilp32: vbx_word_t * is not int *. */
typedef int32_t vbx_word_t;
typedef uint32_t vbx_uword_t;
typedef int16_t vbx_half_t;
typedef uint16_t vbx_uhalf_t;
typedef int8_t vbx_byte_t;
typedef uint8_t vbx_ubyte_t;

/* M(suffix, type) once per element type, in the SDK's order of its per-type functions: how the
 * vbxware routines define their C entry points (vbw_vec_add_byte ... vbw_vec_add_uword). */
#define VBX_FOR_EACH_ELEMENT_TYPE_(M)                                                       \
    M(byte, vbx_byte_t)                                                                     \
    M(ubyte, vbx_ubyte_t)                                                                   \
    M(half, vbx_half_t)                                                                     \
    M(uhalf, vbx_uhalf_t)                                                                   \
    M(word, vbx_word_t)                                                                     \
    M(uword, vbx_uword_t)
typedef void vbx_void_t;
/* Type tag of the enumerated operand (callers pass 0). */
typedef struct { char unused_; } vbx_enum_t;

/*
 * Vector instructions, in the SDK's enumeration order (the C value, not the hardware
 * opcode: vbx_hw_opcode() maps one to the other).
 */
typedef enum vinstr_t {
    VMOV = 0,
    VAND,
    VOR,
    VXOR,
    VADD,
    VSUB,
    VADDC,
    VSUBB,
    VMUL,
    VMULHI,
    VMULFXP,
    VSUBFXP,
    VSHL,
    VSHR,
    VSLT,
    VSGT,
    VCMV_LEZ,
    VCMV_GTZ,
    VCMV_LTZ,
    VCMV_GEZ,
    VCMV_Z,
    VCMV_NZ,
    VADDFXP,
    VABSDIFF,
    VSET_MSK_LEZ,
    VSET_MSK_GTZ,
    VSET_MSK_LTZ,
    VSET_MSK_GEZ,
    VSET_MSK_Z,
    VSET_MSK_NZ,
    VCUSTOM0,
    VCUSTOM1,
    VCUSTOM2,
    VCUSTOM3,
    VCUSTOM4,
    VCUSTOM5,
    VCUSTOM6,
    VCUSTOM7,
    VCUSTOM8,
    VCUSTOM9,
    VCUSTOM10,
    VCUSTOM11,
    VCUSTOM12,
    VCUSTOM13,
    VCUSTOM14,
    VCUSTOM15,
    /* aliases */
    VMULLO = VMUL,
    VMULH = VMULHI,
    VCMV_FS = VCMV_LTZ,
    VCMV_FC = VCMV_GEZ,
    VSET_MSK_FS = VSET_MSK_LTZ,
    VSET_MSK_FC = VSET_MSK_GEZ,
    VCUSTOM = VCUSTOM0
} vinstr_t;

#define MAX_INSTR_VAL 45

/* Capacity of the scratchpad-pointer stack (vbx_sp_push/pop), statically allocated. */
#ifndef VBX_STATIC_SP_STACK_SIZE
#define VBX_STATIC_SP_STACK_SIZE 64
#endif
#define VBX_STATIC_ALLOCATE_SP_STACK 1

/*
 * The MXP instance descriptor. Field names, order and types as the SDK declares them
 * (firmware reads them directly); filled in by vbx_test_init() / VectorBlox_MXP_Initialize()
 * from mxpsim's system-control registers.
 */
typedef struct vbx_mxp_t {
    vbx_void_t *scratchpad_addr; /* CPU address of the first scratchpad byte */
    vbx_void_t *scratchpad_end;  /* one past the last byte */
    vbx_void_t *instr_port_addr; /* CPU address of the instruction port */
    uint32_t *instr_p;           /* unused (incrementing-address port variant only) */
    int scratchpad_size;         /* bytes */
    int core_freq;               /* Hz */
    short dma_alignment_bytes;   /* DMA bus width in bytes (performance hint) */
    short scratchpad_alignment_bytes; /* 4 x vector_lanes: the allocation granule */
    short vector_lanes;
    short unpopulated_alu_lanes;
    short unpopulated_multiplier_lanes;
    short vcustom0_lanes;
    short vcustom1_lanes;
    short vcustom2_lanes;
    short vcustom3_lanes;
    short vcustom4_lanes;
    short vcustom5_lanes;
    short vcustom6_lanes;
    short vcustom7_lanes;
    short vcustom8_lanes;
    short vcustom9_lanes;
    short vcustom10_lanes;
    short vcustom11_lanes;
    short vcustom12_lanes;
    short vcustom13_lanes;
    short vcustom14_lanes;
    short vcustom15_lanes;
    int max_masked_vector_length; /* elements */
    char vector_custom_instructions;
    char fixed_point_support;
    char fxp_word_frac_bits;
    char fxp_half_frac_bits;
    char fxp_byte_frac_bits;
    char init;
    vbx_void_t *sp; /* current allocation pointer */
    vbx_void_t *spstack[VBX_STATIC_SP_STACK_SIZE];
    int spstack_top;
    int spstack_max;
} vbx_mxp_t;

#endif

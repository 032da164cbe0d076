/*
 * vbx_init.c - the MXP instance descriptor: filled in from mxpsim's system-control
 * registers (mxp-spec.md section 1.1).
 */
#include "vbx.h"
#include "vbx_test.h"

vbx_mxp_t *vbx_mxp_ptr;

#ifdef VBX_PORT_CAPTURE
/* SDK checks: the scratchpad is wherever the check program says. */
void *vbx_capture_scratchpad(void);
#define VBX_SCRATCHPAD_BASE_ ((uintptr_t)vbx_capture_scratchpad())
#else
#define VBX_SCRATCHPAD_BASE_ MXPSIM_SCRATCHPAD
#endif

/* The one accelerator of the machine. */
static vbx_mxp_t vbx_mxp_instance;

int _vbx_init(vbx_mxp_t *mxp)
{
    mxp->spstack_max = VBX_STATIC_SP_STACK_SIZE;
    mxp->spstack_top = 0;
    mxp->sp = mxp->scratchpad_addr;
    VBX_SET_THIS_MXP(mxp);
    mxp->init = 1;
    return 0;
}

/* The macro that lets C call it with no arguments would rename the definition. */
#undef VectorBlox_MXP_Initialize

int VectorBlox_MXP_Initialize(const char *mxp_dev, const char *cma_dev)
{
    (void)mxp_dev;
    (void)cma_dev;
    vbx_mxp_t *mxp = &vbx_mxp_instance;
    uint32_t lanes = VBX_SYSCTL_READ_(MXPSIM_SYSCTL_MXP_LANES);
    uint32_t size = VBX_SYSCTL_READ_(MXPSIM_SYSCTL_MXP_SCRATCHPAD_SIZE);
    uint32_t frac = VBX_SYSCTL_READ_(MXPSIM_SYSCTL_MXP_FXP_FRAC_BITS);
    uint32_t custom = VBX_SYSCTL_READ_(MXPSIM_SYSCTL_MXP_CUSTOM_LANES);

    *mxp = (vbx_mxp_t){0};
    mxp->scratchpad_addr = (vbx_void_t *)(uintptr_t)VBX_SCRATCHPAD_BASE_;
    mxp->scratchpad_end = (char *)mxp->scratchpad_addr + size;
    mxp->scratchpad_size = (int)size;
    mxp->instr_port_addr = (vbx_void_t *)(uintptr_t)MXPSIM_MXP_PORT;
    mxp->instr_p = (uint32_t *)(uintptr_t)MXPSIM_MXP_PORT;
    mxp->core_freq = (int)VBX_SYSCTL_READ_(MXPSIM_SYSCTL_CLOCK_HZ);
    mxp->vector_lanes = (short)lanes;
    /* The vendor simulator's choice: both are 4 bytes per lane. */
    mxp->scratchpad_alignment_bytes = (short)(4 * lanes);
    mxp->dma_alignment_bytes = (short)(4 * lanes);
    mxp->unpopulated_alu_lanes = 0;
    mxp->unpopulated_multiplier_lanes = 0;
    mxp->vcustom0_lanes = (short)(custom & 0xffff);
    mxp->vcustom1_lanes = (short)(custom >> 16);
    mxp->max_masked_vector_length = (int)VBX_SYSCTL_READ_(MXPSIM_SYSCTL_MXP_MAX_MASKED_VL);
    mxp->vector_custom_instructions = 2;
    mxp->fixed_point_support = 1;
    mxp->fxp_byte_frac_bits = (char)(frac & 0xff);
    mxp->fxp_half_frac_bits = (char)((frac >> 8) & 0xff);
    mxp->fxp_word_frac_bits = (char)((frac >> 16) & 0xff);
    mxp->init = 0;
    mxp->sp = mxp->scratchpad_addr;
    mxp->spstack_top = 0;
    mxp->spstack_max = 0;
    return _vbx_init(mxp);
}

int vbx_test_init(void)
{
    return VectorBlox_MXP_Initialize(0, 0);
}

void vbx_sp_malloc_uninitialised_(void)
{
    static int said;
    if (said)
        return;
    said = 1;
    fputs("vbx_sp_malloc: the MXP is not initialised, so no scratchpad is allocated (NULL): "
          "call vbx_test_init() or VectorBlox_MXP_Initialize() first\n",
          stderr);
}

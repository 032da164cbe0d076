/*
 * params.c - the descriptor vbx_test_init() fills in from the system-control registers
 * (mxp-spec.md section 1.1; mxpsim's default machine: 4 lanes, 256 KiB scratchpad, fixed-point
 * fractional bits 16/15/4, 256 mask waves, VCUSTOM0/1 with 4 lanes each, 100 MHz), the
 * scratchpad allocator (section 1.2), timestamps, and one sync.
 *
 * qemu: skip (needs the MXP)
 * Needs mxpsim's default MXP configuration (the values printed are its defaults).
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

static int errors;

static void check(const char *what, int ok)
{
    printf("%s: %s\n", what, ok ? "yes" : "NO");
    if (!ok)
        errors++;
}

static long off(void *p)
{
    return p == NULL ? -1 : (long)((char *)p - (char *)VBX_GET_THIS_MXP()->scratchpad_addr);
}

int main(void)
{
    printf("vbx_test_init = %d\n", vbx_test_init());
    vbx_mxp_print_params();

    vbx_mxp_t *m = VBX_GET_THIS_MXP();
    printf("scratchpad_addr = 0x%08lx\n", (unsigned long)(uintptr_t)m->scratchpad_addr);
    printf("scratchpad_end = 0x%08lx\n", (unsigned long)(uintptr_t)m->scratchpad_end);
    printf("instr_port_addr = 0x%08lx\n", (unsigned long)(uintptr_t)m->instr_port_addr);
    printf("scratchpad_alignment_bytes = %d\n", m->scratchpad_alignment_bytes);
    printf("max_masked_vector_length = %d\n", m->max_masked_vector_length);
    printf("vcustom0_lanes = %d, vcustom1_lanes = %d, vcustom2_lanes = %d\n", m->vcustom0_lanes,
           m->vcustom1_lanes, m->vcustom2_lanes);
    printf("unpopulated_alu_lanes = %d, unpopulated_multiplier_lanes = %d\n", m->unpopulated_alu_lanes,
           m->unpopulated_multiplier_lanes);
    printf("vector_custom_instructions = %d, fixed_point_support = %d, init = %d\n",
           m->vector_custom_instructions, m->fixed_point_support, m->init);
    printf("spstack_top = %d, spstack_max = %d\n", m->spstack_top, m->spstack_max);

    printf("allocator:\n");
    printf("sp_malloc(0) -> %ld\n", off(vbx_sp_malloc(0)));
    printf("sp_malloc(1) -> %ld\n", off(vbx_sp_malloc(1)));
    printf("sp_malloc(17) -> %ld\n", off(vbx_sp_malloc(17)));
    printf("sp_malloc(32) -> %ld\n", off(vbx_sp_malloc(32)));
    printf("used %d, free %d\n", vbx_sp_getused(), vbx_sp_getfree());
    vbx_sp_push();
    printf("pushed; sp_malloc(1000) -> %ld\n", off(vbx_sp_malloc(1000)));
    printf("used %d\n", vbx_sp_getused());
    vbx_sp_pop();
    printf("popped; used %d\n", vbx_sp_getused());
    int left = vbx_sp_getfree();
    printf("sp_malloc(free + 1) -> %ld\n", off(vbx_sp_malloc((size_t)left + 1)));
    printf("sp_malloc(free) -> %ld\n", off(vbx_sp_malloc((size_t)left)));
    printf("free %d, sp_malloc(1) -> %ld\n", vbx_sp_getfree(), off(vbx_sp_malloc(1)));
    vbx_sp_push();
    vbx_sp_free();
    printf("sp_free: used %d, spstack_top %d\n", vbx_sp_getused(), m->spstack_top);

    printf("timestamps:\n");
    vbx_timestamp_start();
    vbx_timestamp_t t0 = vbx_timestamp();
    volatile int spin = 0;
    for (int i = 0; i < 1000; i++)
        spin += i;
    vbx_timestamp_t t1 = vbx_timestamp();
    check("the timestamp advances", t1 > t0);
    check("frequency = core_freq", vbx_timestamp_freq() == (vbx_timestamp_t)m->core_freq);
    check("cycles = ticks", vbx_mxp_cycles(t1 - t0) == t1 - t0);

    vbx_sync();
    printf("synced\n");
    VBX_TEST_END(errors);
    return errors;
}

/*
 * init_forms.c - the calls of VectorBlox_MXP_Initialize the SDK's ports make (none, as ORCA and
 * HPS; the MXP and CMA device names, as the RISC-V and Linux ports), each of which starts the
 * scratchpad allocator afresh (mxp-spec.md sections 1.1, 1.2), and the hint vbx_sp_malloc gives,
 * once, when it is asked before any of them (on stderr, which picolibc's semihosting console
 * shares with stdout).
 *
 * qemu: skip (needs the MXP)
 * Needs mxpsim's default MXP configuration (4 lanes, so 16-byte allocation granules; 256 KiB).
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_test.h"

static long offset(void *p)
{
    return p == NULL ? -1 : (long)((char *)p - (char *)VBX_GET_THIS_MXP()->scratchpad_addr);
}

int main(void)
{
    void *early = vbx_sp_malloc(64);
    void *again = vbx_sp_malloc(64);
    printf("before initialisation: %s %s\n", early ? "block" : "NULL", again ? "block" : "NULL");

    int status = VectorBlox_MXP_Initialize("mxp0", "cma");
    vbx_mxp_t *mxp = VBX_GET_THIS_MXP();
    printf("device names: status %d, init %d, scratchpad %d bytes\n", status, mxp->init, mxp->scratchpad_size);
    long first = offset(vbx_sp_malloc(64));
    long second = offset(vbx_sp_malloc(100));
    printf("allocations at %ld and %ld, next at %ld\n", first, second, offset(vbx_sp_malloc(1)));

    status = VectorBlox_MXP_Initialize();
    printf("no arguments: status %d, allocation at %ld\n", status, offset(vbx_sp_malloc(32)));

    int (*initialize)(const char *, const char *) = VectorBlox_MXP_Initialize;
    status = initialize(NULL, NULL);
    printf("through a pointer: status %d, allocation at %ld\n", status, offset(vbx_sp_malloc(32)));

    VBX_TEST_END(status);
    return 0;
}

/*
 * runaway_dma.c - a valid 2-D DMA of 2^32 - 1 rows (both strides 0: every row is the same
 * 64 bytes, inside the scratchpad and DRAM) and a sync that waits for it: about 2^36 cycles
 * of transfer (the CPU's own bus accesses wait behind it too). The hardware form is issued directly (the API splits rows with a scratchpad
 * stride below the row length into 1-D requests). mxpsim must take the command at once (its
 * rows are described, not listed) and stop at --max-cycles while the CPU waits (issue 13).
 *
 * qemu: skip (needs the MXP)
 * cache: default-only
 * run-options: --max-cycles 20000000
 * expect-exit: 120
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

int main(void)
{
    vbx_test_init();
    uint8_t *src = vbx_shared_malloc(64);
    uint8_t *v = vbx_sp_malloc(64);
    const uint32_t rows = 0xffffffffu;
    printf("issuing a 2-D DMA of %lu rows\n", (unsigned long)rows);
    fflush(stdout);
    /* Set-up: scratchpad increment 0, rows; then the external increment 0. */
    vbx_cmd4_(VBX_OP_DMA_TO_VECTOR | VBX_MODE_SE, 0, rows, 0);
    vbx_cmd4_(VBX_OP_DMA_TO_HOST | VBX_MODE_SV, 0, 0, 0);
    vbx_cmd4_(VBX_OP_DMA_TO_VECTOR | MOD_ACC, vbx_dma_addr_(VBX_WORD_(src)), VBX_WORD_(v), 64);
    vbx_sync();
    printf("the DMA completed\n");
    return 0;
}

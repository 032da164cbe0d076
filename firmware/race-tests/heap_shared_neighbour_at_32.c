/*
 * heap_shared_neighbour_at_32.c - heap_shared_neighbour_64.c (a shared output buffer `out`
 * whose tail shares a 64-byte line with the next, cached heap block `note`, which the CPU
 * stores into after the sync) on the default machine, 32-byte lines: out[4..7]
 * (L+64..L+79) and note (L+112..L+127) are in different 32-byte lines, and the store into note
 * after the sync does not touch a line the DMA wrote.
 * No race. (Only the line size differs from heap_shared_neighbour_64.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include <unistd.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 8 /* words of out */

/* Move the program break so that the next malloc returns a block 32 bytes past a 64-byte
 * boundary. */
static void align_heap(void)
{
    uintptr_t brk = (uintptr_t)sbrk(0);
    sbrk((ptrdiff_t)((28 - brk) & 63));
}

int main(void)
{
    vbx_test_init();
    align_heap();
    int32_t *out = vbx_shared_malloc(N * 4);
    volatile int32_t *note = malloc(16);
    uintptr_t out_dram = (uintptr_t)VBX_CACHED_ADDR(out);
    if (out == NULL || note == NULL || (out_dram & 63) != 48 || (uintptr_t)note != out_dram + 64)
        return 1;
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 300, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, N * 4);
    vbx_sync();
    note[0] = 1;

    printf("out[7] = %ld\n", (long)out[7]);
    return 0;
}

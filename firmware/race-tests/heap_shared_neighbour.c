/*
 * heap_shared_neighbour.c - the race of the SDK programs, at 64-byte lines and not at 32.
 * vbx_shared_malloc pads a shared buffer to VBX_CPU_DCACHE_LINE_SIZE = 16 bytes, less than
 * the line. Layout (the program break is moved first; the program checks it and exits 1
 * otherwise): the shared block's user buffer `out` (32 bytes) starts 48 bytes into a
 * 64-byte line L, and the next malloc'd block `note` (16 bytes, cached) starts at L+112.
 * vbx_dma_to_host writes out; after vbx_sync() the CPU stores into note through the cache,
 * without invalidating the line.
 *  - 64-byte lines (--cache line=64): the line L+64..L+127 holds out[4..7] and note. Under
 *    whole-line write-back the store first fills the line (rule 9: alloc, pred = the
 *    flush-all before the request), which reads out[4..7] and may have happened before the
 *    DMA wrote them; the line's write-back would then put the stale bytes back: alloc/dma_w.
 *    The CPU never touches out through the cache: the cure is padding to the real line size.
 *  - the default machine, 32-byte lines: out[4..7] (L+64..L+79) and note (L+112..L+127) are
 *    in different lines, and the store into note does not touch a line the DMA wrote: no race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 * race-check: --cache line=64
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@note b=@recv object=heap fix=align
 * expect-provoke: alloc/dma_w a-before-b=silent-corruption b-before-a=benign
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

    vbx_dma_to_host(out, v, N * 4); /* @recv */
    vbx_sync();
    note[0] = 1; /* @note */

    printf("out[7] = %ld\n", (long)out[7]);
    return 0;
}

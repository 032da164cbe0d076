/*
 * shared_malloc_header_uncached.c - with 64-byte lines and --race-uncached: the SDK's own
 * uncached stores share a line with the heap's cached ones. No DMA is involved; without
 * --race-uncached nothing is reported.
 *
 * Layout (the program break is moved first; the program checks it and exits 1 otherwise):
 * vbx_shared_malloc(16) gets a malloc block at a 64-byte boundary L (its chunk, with the
 * 4-byte header, is L-4..L+59; vbx_uncached_malloc flushes the line L..L+63), stores the
 * back-pointer through the uncached alias at L+12 and returns the buffer s = L+16..L+31. The
 * next malloc(16) writes its chunk header, through the cache, at L+60 (its block starts at
 * L+64): the same 64-byte line.
 *  1. The header store fills the line first (rule 9: alloc, pred = vbx_uncached_malloc's
 *     flush, succ = the store); the back-pointer store lies between: uw/alloc on the
 *     back-pointer (its racing store is inside vbx_shared_malloc, an SDK header: the top user
 *     frame is the call).
 *  2. Then the CPU fills s through the uncached alias; the line is dirty with the header and
 *     not flushed before the fill, so its whole-line write-back may come after and undo it:
 *     uw/wb on s (the last store to the line before the fill is malloc's header store: the
 *     top user frame is the malloc call). The flush after the fill orders the final uncached
 *     read.
 * Neither cached access touches the racing bytes: the cure is padding to the line size
 * (VBX_CPU_DCACHE_LINE_SIZE=64).
 * The default run already loses s: the line is filled at the header store, after the
 * back-pointer store and before the fill of s, and its write-back at the final flush puts
 * s's old zeros back ("s[3] = 0"). provoke (whole-line write-back, the default):
 *  - uw/alloc, uncached store first: the line is not cached then, the header store fills
 *    it as by default: benign. Fill first (right after vbx_uncached_malloc's flush, kept
 *    until the header store): the write-back carries the back-pointer's old bytes, so
 *    memory at L+12 differs, the output does not: silent corruption.
 *  - uw/wb, uncached fill of s first (the same early fill kept until after it): the same
 *    back-pointer loss, s as by default: silent corruption. Write-back first (just before
 *    the fill of s): s's stores stay, "s[3] = 4": harmful.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --cache line=64 --race-uncached
 * expect-findings: 2
 * expect-finding: uw/alloc a=@shared b=@next object=heap fix=align
 * expect-provoke: uw/alloc a-before-b=benign b-before-a=silent-corruption
 * expect-finding: uw/wb a=@fill b=@next object=heap fix=align
 * expect-provoke: uw/wb a-before-b=silent-corruption b-before-a=harmful
 */
#include <unistd.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 4 /* words of s */

/* Move the program break so that the next malloc returns a 64-byte aligned block. */
static void align_heap(void)
{
    uintptr_t brk = (uintptr_t)sbrk(0);
    sbrk((ptrdiff_t)((60 - brk) & 63));
}

int main(void)
{
    vbx_test_init();
    align_heap();
    volatile int32_t *s = vbx_shared_malloc(N * 4); /* @shared */
    int32_t *next = malloc(16); /* @next */
    uintptr_t s_dram = (uintptr_t)VBX_CACHED_ADDR(s);
    if (s == NULL || next == NULL || (s_dram & 63) != 16 || (uintptr_t)next != s_dram + 48)
        return 1;

    for (int i = 0; i < N; i++)
        s[i] = i + 1; /* @fill */
    vbx_dcache_flush_line((const void *)s);

    printf("s[3] = %ld\n", (long)s[3]);
    return 0;
}

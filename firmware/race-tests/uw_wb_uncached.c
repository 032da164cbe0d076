/*
 * uw_wb_uncached.c - a dirty line over an uncached write, CPU only: needs --race-uncached.
 * The CPU stores a word through the cache, then stores the same word through the uncached
 * alias without flushing first. The line's whole-line write-back (succ = the flush at the
 * end) may come after the uncached store and undo it: uw/wb. (The cached store's own fill
 * comes before the uncached store: ordered.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --race-uncached
 * expect-findings: 1
 * expect-finding: uw/wb a=@uwrite b=@store object=buf fix=flush
 * expect-provoke: uw/wb a-before-b=benign b-before-a=harmful
 *   (the default run writes the line back at the flush, after the uncached store:
 *   "buf[4] = 1"; written back just before it, the uncached store stays: 2)
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

/* volatile: gcc must not reorder the cached and the uncached access (it may assume the alias
 * pointer, computed from buf, points elsewhere). */
static volatile int32_t buf[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    volatile int32_t *ubuf = mxpsim_uncached((const void *)buf);
    vbx_dcache_flush_all();

    buf[4] = 1; /* @store */
    ubuf[4] = 2; /* @uwrite */
    vbx_dcache_flush((const void *)buf, sizeof buf);

    printf("buf[4] = %ld\n", (long)ubuf[4]);
    return 0;
}

/*
 * ur_wb_uncached.c - cached and uncached views of one buffer, CPU only: needs
 * --race-uncached (the paper's footnote 5; without it CPU-uncached-vs-cache races are not
 * reported, and this program reports none). The CPU stores a word through the cache and
 * then reads the same word through the uncached alias, with no flush between. The line's
 * write-back (pred = the store, succ = the flush at the end) is not ordered before the
 * uncached read: ur/wb on the line's bytes the read touches. A second uncached read after
 * the flush is ordered.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --race-uncached
 * expect-findings: 1
 * expect-finding: ur/wb a=@peek b=@store object=buf fix=flush
 * expect-provoke: ur/wb a-before-b=benign b-before-a=harmful
 *   (the default run reads before any write-back: "uncached 0"; written back just before the
 *   read, it reads 5)
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

    buf[2] = 5; /* @store */
    int32_t early = ubuf[2]; /* @peek */
    vbx_dcache_flush((const void *)buf, sizeof buf);
    int32_t late = ubuf[2];

    printf("uncached %ld, after flush %ld\n", (long)early, (long)late);
    return 0;
}

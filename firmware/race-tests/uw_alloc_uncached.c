/*
 * uw_alloc_uncached.c - a stale line from an uncached write, CPU only: needs
 * --race-uncached. The CPU reads a word through the cache (the line is valid), writes it
 * through the uncached alias, and reads it again through the cache without invalidating.
 * The second read's line fill (alloc: pred = the flush-all at the start, succ = the read)
 * may predate the uncached write: uw/alloc. The first read's fill comes before the write:
 * ordered.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --race-uncached
 * expect-findings: 1
 * expect-finding: uw/alloc a=@uwrite b=@reread object=buf fix=invalidate
 * expect-provoke: uw/alloc a-before-b=harmful b-before-a=benign
 *   (the line stays cached from the first read: "then 0"; filled again just after the
 *   uncached write, the second read gives 9; kept from the flush-all on, 0 as by default)
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static volatile int32_t buf[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    volatile int32_t *ubuf = mxpsim_uncached((const void *)buf);
    vbx_dcache_flush_all();

    int32_t first = buf[0];
    ubuf[0] = 9; /* @uwrite */
    int32_t second = buf[0]; /* @reread */
    vbx_dcache_flush((const void *)buf, sizeof buf);

    printf("cached %ld, then %ld\n", (long)first, (long)second);
    return 0;
}

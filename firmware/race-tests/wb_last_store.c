/*
 * wb_last_store.c - which store a write-back race names. One line of a cached input buffer
 * is dirtied twice before vbx_dma_to_vector, with no flush: first buf[0], then (a few lines
 * later) buf[7]. Both stores' write-backs race with the DMA, and a flush must follow the
 * LAST of them: the finding names the store to buf[7] (the write-back side of a finding is
 * the last store to the racing line before the other side). One finding.
 *
 * buf is volatile only to keep gcc from reordering the two stores.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@last b=@send object=buf fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static volatile int32_t buf[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    buf[0] = 1;
    int32_t scale = (int32_t)mxpsim_dcache_line_size() / 8;
    buf[7] = scale; /* @last */
    vbx_dma_to_vector(v, buf, sizeof buf); /* @send */
    vbx_sync();
    vbx_dcache_flush((const void *)buf, sizeof buf);

    printf("v[0] = %ld, v[7] = %ld\n", (long)v[0], (long)v[7]);
    return 0;
}

/*
 * twin_wb_dma_r_flushed.c - the synchronised twin of wb_dma_r_flush_too_early.c and
 * wb_dma_r_pending_store.c: fill, flush, vbx_dma_to_vector, vbx_sync, and only then the next
 * store. The fill's write-back happens before the flush, which precedes the request; the
 * later store comes after the sync. No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t buf[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    for (int i = 0; i < N; i++)
        buf[i] = i + 1;
    vbx_dcache_flush(buf, sizeof buf);
    vbx_dma_to_vector(v, buf, sizeof buf);
    vbx_sync();
    buf[0] = -1;
    buf[5] = 100;
    vbx_dcache_flush(buf, sizeof buf);

    printf("v[0] = %ld, v[5] = %ld\n", (long)v[0], (long)v[5]);
    return 0;
}

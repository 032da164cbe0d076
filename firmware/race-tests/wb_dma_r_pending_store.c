/*
 * wb_dma_r_pending_store.c - the input buffer is filled and flushed correctly, and sent with
 * vbx_dma_to_vector; but before vbx_sync() the CPU already stores the next value into the
 * buffer (cached). That store's write-back (pred = the store, after the request) may reach
 * DRAM while the DMA still reads it (the DMA's successor is the sync, after the store):
 * wb/dma_r. The missing piece is the sync before the store. (The store's line fill, rule 9,
 * only reads DRAM: no race with a DMA that also reads.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@next b=@send object=buf fix=sync
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
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
    vbx_dma_to_vector(v, buf, sizeof buf); /* @send */
    buf[0] = -1; /* @next */
    vbx_sync();
    vbx_dcache_flush(buf, sizeof buf);

    printf("v[0] = %ld\n", (long)v[0]);
    return 0;
}

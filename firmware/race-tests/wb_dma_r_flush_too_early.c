/*
 * wb_dma_r_flush_too_early.c - the input buffer is filled and flushed, but one element is
 * patched AFTER the flush and before vbx_dma_to_vector. The patched line is dirty again and
 * nothing orders its write-back before the DMA (race-semantics.md rule 6: wb's successor is
 * the next clean/flush of the line, which only comes at the end): wb/dma_r on that line
 * alone. The fill itself is ordered by the flush (its wb happens before the flush, the flush
 * before the request), so it is not a finding.
 *
 * buf is 64 bytes at a 64-byte boundary: it owns its lines. With 32-byte lines the racing
 * bytes are buf[0..7], the DMA's bytes in the patched line.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@patch b=@send object=buf fix=flush
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
    buf[5] = 100; /* @patch */
    vbx_dma_to_vector(v, buf, sizeof buf); /* @send */
    vbx_sync();
    vbx_dcache_flush(buf, sizeof buf);

    printf("v[5] = %ld\n", (long)v[5]);
    return 0;
}

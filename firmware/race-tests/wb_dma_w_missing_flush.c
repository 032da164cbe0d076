/*
 * wb_dma_w_missing_flush.c - the CPU pre-fills a cached output buffer (with markers), then
 * requests vbx_dma_to_host into it without flushing first. The dirty lines' write-backs
 * (successor: the flush after the sync) can land after the DMA's writes and put the markers
 * back over the result: wb/dma_w on both lines, write-after-write. One finding (one store
 * site). The flush after the sync is what a correct program has before reading the result
 * (here it is also the write-back that clobbers it).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_w a=@mark b=@recv object=out fix=flush
 * expect-provoke: wb/dma_w a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t out[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 1000, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    for (int i = 0; i < N; i++)
        out[i] = -1 - i; /* @mark */
    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    vbx_sync();
    vbx_dcache_flush(out, sizeof out);

    printf("out[2] = %ld\n", (long)out[2]);
    return 0;
}

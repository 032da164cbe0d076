/*
 * alloc_dma_w_loop.c - a loop over a whole 256-byte output buffer (8 lines of 32 bytes),
 * reading it through the cache after vbx_dma_to_host and vbx_sync(), without invalidating:
 * every line's fill may predate the DMA's writes (alloc/dma_w). One load site, one request:
 * ONE finding covering all 256 bytes.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@sum b=@recv object=out fix=invalidate
 * expect-provoke: alloc/dma_w a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 64 /* words */

static int32_t out[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 1, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    vbx_sync();
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += out[i]; /* @sum */
    vbx_dcache_flush(out, sizeof out);

    printf("sum %ld\n", (long)sum);
    return 0;
}

/*
 * ur_dma_w.c - polling a shared (uncached) output buffer instead of syncing. vbx_dma_to_host
 * writes a buffer from vbx_shared_malloc; the CPU reads its last word through the uncached
 * alias before vbx_sync(). An uncached read is coherent with DRAM but not ordered after the
 * DMA's write: ur/dma_w on those 4 bytes (a heap block).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: ur/dma_w a=@poll b=@recv object=heap fix=sync
 * expect-provoke: ur/dma_w a-before-b=benign b-before-a=harmful
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

int main(void)
{
    vbx_test_init();
    int32_t *out = vbx_shared_malloc(N * 4);
    if (out == NULL)
        return 1;
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 60, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, N * 4); /* @recv */
    int32_t last = out[N - 1]; /* @poll */
    vbx_sync();

    printf("polled %ld, final %ld\n", (long)last, (long)out[N - 1]);
    return 0;
}

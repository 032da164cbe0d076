/*
 * uw_dma_w.c - vbx_dma_to_host writes a shared (uncached) output buffer; before vbx_sync()
 * the CPU clears the buffer's first word through the uncached alias (meant for the next
 * round). Two writes of the same DRAM bytes, unordered: uw/dma_w on 4 bytes.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: uw/dma_w a=@clear b=@recv object=heap fix=sync
 * expect-provoke: uw/dma_w a-before-b=benign b-before-a=harmful
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
    out[0] = 0; /* @clear */
    vbx_sync();

    printf("out[0] = %ld\n", (long)out[0]);
    return 0;
}

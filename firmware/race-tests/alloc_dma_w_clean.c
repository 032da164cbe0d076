/*
 * alloc_dma_w_clean.c - a clean is not an invalidate. After vbx_dma_to_host and vbx_sync()
 * the program cleans the output buffer's lines (cbo.clean: write back, keep the line valid)
 * and then reads the buffer through the cache. A clean does not order later line fills
 * (rule 7: only a flush or an invalidate does): the fill's pred is still the flush-all
 * before the request, so alloc/dma_w on every line read. One finding.
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

#define N 16 /* words */

static int32_t out[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 1, 0);
    vbx_sync();
    vbx_dcache_flush_all();
    uint32_t line = mxpsim_dcache_line_size();

    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    vbx_sync();
    for (uint32_t off = 0; off < sizeof out; off += line)
        mxpsim_cbo_clean((const char *)out + off);
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += out[i]; /* @sum */
    vbx_dcache_flush(out, sizeof out);

    printf("sum %ld\n", (long)sum);
    return 0;
}

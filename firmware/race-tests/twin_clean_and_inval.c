/*
 * twin_clean_and_inval.c - the synchronised twin of alloc_dma_w_clean.c, with the
 * maintenance each direction needs and nothing more:
 *  1. input: the CPU fills a cached buffer and CLEANS its lines before vbx_dma_to_vector.
 *     The write-backs happen before the clean (rule 6), the clean before the request: no
 *     race, although the lines stay valid;
 *  2. output: after vbx_dma_to_host and vbx_sync() the CPU INVALIDATES the output lines and
 *     then reads them: every later line fill comes after the invalidate, which comes after the
 *     sync (rule 7). (The output lines are clean before the DMA, so the invalidate drops no
 *     data.)
 * No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t in[N] __attribute__((aligned(64)));
static int32_t out[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_word_t *w = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx_dcache_flush_all();
    uint32_t line = mxpsim_dcache_line_size();

    for (int i = 0; i < N; i++)
        in[i] = 2 * i;
    for (uint32_t off = 0; off < sizeof in; off += line)
        mxpsim_cbo_clean((const char *)in + off);
    int32_t first = out[0];
    vbx_dma_to_vector(v, in, sizeof in);
    vbx(SVW, VADD, w, 1, v);
    vbx_dma_to_host(out, w, sizeof out);
    vbx_sync();
    for (uint32_t off = 0; off < sizeof out; off += line)
        mxpsim_cbo_inval((const char *)out + off);
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += out[i];
    in[0] = -1;

    printf("out[0] %ld, sum %ld\n", (long)first, (long)sum);
    return 0;
}

/*
 * helper_three_sites.c - the DMA is issued from a helper (noinline: a frame of its own),
 * called from three sites. Each call sends a different cached buffer that main has just
 * filled, with no flush before the helper: wb/dma_r three times. The DMA's top user frame is
 * the line in the helper for all three, but the stores are three different lines of main:
 * THREE findings, one per (store line, helper line). Each buffer owns its lines.
 * provoke: each finding is two races, one per 32-byte line of its buffer. By default the
 * DMA reads zeros (the lines are still dirty in the cache): "0 0 0". The line of buf[8..15]
 * written back first makes the DMA read buf[15], which the program prints (15, 30, 45):
 * harmful; the DMA first is the default order: benign.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 3
 * expect-finding: wb/dma_r a=@fill_a b=@dma object=a_buf fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-finding: wb/dma_r a=@fill_b b=@dma object=b_buf fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-finding: wb/dma_r a=@fill_c b=@dma object=c_buf fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t a_buf[N] __attribute__((aligned(64)));
static int32_t b_buf[N] __attribute__((aligned(64)));
static int32_t c_buf[N] __attribute__((aligned(64)));

/* Sends N words from src to the scratchpad and waits. */
__attribute__((noinline)) static int32_t send(vbx_word_t *v, const int32_t *src)
{
    vbx_dma_to_vector(v, src, N * 4); /* @dma */
    vbx_sync();
    return v[N - 1];
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    for (int i = 0; i < N; i++)
        a_buf[i] = i; /* @fill_a */
    int32_t x = send(v, a_buf);
    for (int i = 0; i < N; i++)
        b_buf[i] = 2 * i; /* @fill_b */
    int32_t y = send(v, b_buf);
    for (int i = 0; i < N; i++)
        c_buf[i] = 3 * i; /* @fill_c */
    int32_t z = send(v, c_buf);

    printf("%ld %ld %ld\n", (long)x, (long)y, (long)z);
    return 0;
}

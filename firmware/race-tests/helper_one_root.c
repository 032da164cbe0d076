/*
 * helper_one_root.c - one root cause behind three DMAs: a fill helper and a send helper
 * (both noinline, frames of their own), called in pairs from three sites in main, with no
 * flush between fill and send. Every wb/dma_r has the same top user frames (the store in
 * fill, the request in send) and the same class: ONE finding, however many calls.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@fill b=@dma object=buf fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t buf[N] __attribute__((aligned(64)));

__attribute__((noinline)) static void fill(int32_t *dst, int32_t seed)
{
    for (int i = 0; i < N; i++)
        dst[i] = seed + i; /* @fill */
}

__attribute__((noinline)) static int32_t send(vbx_word_t *v, const int32_t *src)
{
    vbx_dma_to_vector(v, src, N * 4); /* @dma */
    vbx_sync();
    return v[0];
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    fill(buf, 10);
    int32_t x = send(v, buf);
    fill(buf, 20);
    int32_t y = send(v, buf);
    fill(buf, 30);
    int32_t z = send(v, buf);

    printf("%ld %ld %ld\n", (long)x, (long)y, (long)z);
    return 0;
}

/*
 * twin_shared_synced.c - the synchronised twin of ur_dma_w.c, uw_dma_r.c and uw_dma_w.c:
 * shared (uncached) buffers, written before the request and read or rewritten only after
 * vbx_sync(), as vec_add does. Every shared buffer is allocated, and the cache flushed,
 * before the first DMA; nothing is freed. No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

int main(void)
{
    vbx_test_init();
    int32_t *in = vbx_shared_malloc(N * 4);
    int32_t *out = vbx_shared_malloc(N * 4);
    if (in == NULL || out == NULL)
        return 1;
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_word_t *w = vbx_sp_malloc(N * 4);
    for (int i = 0; i < N; i++)
        in[i] = i;
    vbx_set_vl(N);
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, in, N * 4);
    vbx(SVW, VADD, w, 60, v);
    vbx_dma_to_host(out, w, N * 4);
    vbx_sync();
    int32_t last = out[N - 1];
    for (int i = 0; i < N; i++)
        in[i] = 100 + i;
    out[0] = 0;
    vbx_dma_to_vector(v, in, N * 4);
    vbx_sync();

    printf("last %ld, v[4] = %ld\n", (long)last, (long)v[4]);
    return 0;
}

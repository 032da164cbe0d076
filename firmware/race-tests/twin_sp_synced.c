/*
 * twin_sp_synced.c - the synchronised twin of spr_dma_r.c, spw_dma_r.c, spw_dma_w.c,
 * spr_vec.c and spw_vec.c: the same scratchpad accesses by the CPU, each after a
 * vbx_sync() that follows the engine work on those bytes, and before any later engine work
 * on them is requested. No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t src[N] __attribute__((aligned(64)));
static int32_t out[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *a = vbx_sp_malloc(N * 4);
    vbx_word_t *b = vbx_sp_malloc(N * 4);
    vbx_word_t *d = vbx_sp_malloc(N * 4);
    for (int i = 0; i < N; i++)
        src[i] = i + 1;
    vbx_set_vl(N);
    vbx_dcache_flush_all();

    vbx_dma_to_vector(a, src, sizeof src);
    vbx_sync();
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += a[i];
    a[2] = -7;
    for (int i = 0; i < N; i++)
        b[i] = 3 * i;
    vbx(VVW, VADD, d, a, b);
    vbx_sync();
    int32_t y = d[5];
    a[0] = 1000;
    d[15] = -1;
    vbx_dma_to_host(out, d, sizeof out);
    vbx_sync();
    for (int i = 0; i < N; i++)
        d[i] = -i;
    vbx_dcache_flush(out, sizeof out);

    printf("sum %ld, d[5] %ld, out[15] %ld\n", (long)sum, (long)y, (long)out[15]);
    return 0;
}

/*
 * twin_round_trip.c - a complete, correctly synchronised round trip with cached buffers:
 * fill the input, flush it, DMA it in, compute, DMA the result out, sync, flush the output,
 * read it. A status counter lives in its own line (the output buffer starts a new 64-byte
 * block) and is bumped while the engine works. No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static struct {
    int32_t counter;
    int32_t out[N] __attribute__((aligned(64)));
} state __attribute__((aligned(64)));
static int32_t in[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_word_t *w = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx_dcache_flush_all();

    for (int i = 0; i < N; i++)
        in[i] = i - 8;
    vbx_dcache_flush(in, sizeof in);
    vbx_dcache_flush(state.out, sizeof state.out);
    vbx_dma_to_vector(v, in, sizeof in);
    vbx(VVW, VMUL, w, v, v);
    vbx_dma_to_host(state.out, w, sizeof state.out);
    state.counter++;
    vbx_sync();
    vbx_dcache_flush(state.out, sizeof state.out);
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += state.out[i];
    state.counter++;

    printf("sum of squares %ld, counter %ld\n", (long)sum, (long)state.counter);
    return 0;
}

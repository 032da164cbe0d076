/*
 * spr_dma_w_no_race.c - the CPU reads a scratchpad vector while vbx_dma_to_host is still
 * copying it out (no vbx_sync() between). Both only READ the scratchpad: not a race
 * (race-semantics.md section 2: at least one of the two must write). So there is no spr/dma_w
 * class at all. The output buffer is read after the sync and a flush. No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
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
    vbx(SEW, VADD, v, 50, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, sizeof out);
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += v[i];
    vbx_sync();
    vbx_dcache_flush(out, sizeof out);

    printf("sum %ld, out[9] = %ld\n", (long)sum, (long)out[9]);
    return 0;
}

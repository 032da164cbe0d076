/*
 * spw_dma_w.c - vbx_dma_to_host copies a scratchpad vector out; before vbx_sync() the CPU
 * already reuses that scratchpad vector and writes new values into it. The DMA's scratchpad
 * reads and the CPU's stores are not ordered: spw/dma_w on every byte written (the host may
 * get the new values). One store site (a loop): one finding. The output buffer is only read
 * after the sync and a flush: no cache race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spw/dma_w a=@reuse b=@save object=scratchpad fix=sync
 * expect-provoke: spw/dma_w a-before-b=benign b-before-a=silent-corruption
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

    vbx_dma_to_host(out, v, sizeof out); /* @save */
    for (int i = 0; i < N; i++)
        v[i] = -i; /* @reuse */
    vbx_sync();
    vbx_dcache_flush(out, sizeof out);

    printf("out[9] = %ld\n", (long)out[9]);
    return 0;
}

/*
 * spw_dma_r.c - the CPU stores one word into a scratchpad vector while vbx_dma_to_vector into
 * the same vector is still pending (no vbx_sync() between): two writes of the same bytes,
 * ordered by nothing. spw/dma_r on the 4 bytes of v[2].
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spw/dma_r a=@poke b=@load object=scratchpad fix=sync
 * expect-provoke: spw/dma_r a-before-b=benign b-before-a=harmful
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t src[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    for (int i = 0; i < N; i++)
        src[i] = i + 1;
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, src, sizeof src); /* @load */
    v[2] = -7; /* @poke */
    vbx_sync();

    printf("v[2] = %ld\n", (long)v[2]);
    return 0;
}

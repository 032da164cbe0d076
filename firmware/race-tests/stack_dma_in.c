/*
 * stack_dma_in.c - a local array (64-byte aligned, so it owns its lines) is filled by the
 * CPU and sent to the scratchpad with vbx_dma_to_vector without a flush: wb/dma_r on the
 * whole array, a stack object of produce(). The cache is flushed before produce() is
 * called, so the loop's stores are the only stores to those lines before the request.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@fill b=@send object=stack:produce fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

__attribute__((noinline)) static int32_t produce(vbx_word_t *v)
{
    int32_t tmp[N] __attribute__((aligned(64)));
    for (int i = 0; i < N; i++)
        tmp[i] = 5 * i + 2; /* @fill */
    vbx_dma_to_vector(v, tmp, sizeof tmp); /* @send */
    vbx_sync();
    return v[3];
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    int32_t x = produce(v);

    printf("v[3] = %ld\n", (long)x);
    return 0;
}

/*
 * stack_local_named.c - a local array with the ABI's 16-byte alignment (so DWARF places it at
 * a fixed offset from the frame address, and the report can name it) is filled by the CPU
 * and sent to the scratchpad with vbx_dma_to_vector without a flush: wb/dma_r on the array's
 * bytes, which the report names as `samples` in the stack frame of gather(). The cache is
 * flushed before gather() is called, so the loop's stores are the last stores to the
 * array's lines before the request. (Its lines may also hold gather()'s saved registers;
 * those are stored before the loop and are not racing bytes: the DMA reads only the array.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@fill b=@send object=stack:gather/samples fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 8 /* words */

__attribute__((noinline)) static int32_t gather(vbx_word_t *v)
{
    int32_t samples[N];
    for (int i = 0; i < N; i++)
        samples[i] = 3 * i + 1; /* @fill */
    vbx_dma_to_vector(v, samples, sizeof samples); /* @send */
    vbx_sync();
    return v[5];
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_dcache_flush_all();

    int32_t x = gather(v);

    printf("v[5] = %ld\n", (long)x);
    return 0;
}

/*
 * false_sharing_64_at_32.c - false_sharing_64.c (a counter and a DMA output array 32 bytes apart
 * in one 64-byte aligned struct, the counter bumped before a vbx_dma_to_host into the array
 * with no flush between) on the default machine, 32-byte lines. The counter and the array
 * are in different lines now: no race. (Only the line size differs from false_sharing_64.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 8 /* words of data */

static struct {
    int32_t counter;
    int32_t unused[7];
    int32_t data[N];
} shared __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 500, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    shared.counter++;
    vbx_dma_to_host(shared.data, v, sizeof shared.data);
    vbx_sync();
    vbx_dcache_flush(&shared, sizeof shared);

    printf("counter %ld, data[7] = %ld\n", (long)shared.counter, (long)shared.data[7]);
    return 0;
}

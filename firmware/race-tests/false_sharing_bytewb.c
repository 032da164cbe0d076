/*
 * false_sharing_bytewb.c - false_sharing_32.c (a counter bumped before a vbx_dma_to_host into
 * an array in the same 32-byte line, no flush between) on a cache with byte-granular
 * write-back (--cache wb=byte). The write-back writes only the dirty bytes (the counter),
 * which the DMA does not write, and a store has no line fill under byte-granular
 * write-back; the load's fill comes before the request. No race: false sharing is only a
 * race under whole-line write-back.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * race-check: --cache wb=byte
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 7 /* words of data */

static struct {
    int32_t counter;
    int32_t data[N];
} shared __attribute__((aligned(32)));

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

    printf("counter %ld, data[6] = %ld\n", (long)shared.counter, (long)shared.data[6]);
    return 0;
}

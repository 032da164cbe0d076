/*
 * alloc_dma_w_store_after.c - write-allocation (race-semantics.md rule 9). vbx_dma_to_host
 * writes the output buffer; after vbx_sync() the CPU patches ONE word of it through the
 * cache, without invalidating the line first.
 *  - whole-line write-back (the default): the store fills the line (alloc: pred = the
 *    flush-all before the request, succ = the store), and the line's write-back later puts
 *    back the other 28 bytes as that fill read them, possibly from before the DMA:
 *    alloc/dma_w on the line of out[3] (out[0..7] with 32-byte lines). The write-back itself
 *    comes after the sync: ordered.
 *  - byte-granular write-back (--cache wb=byte): a store has no line fill (rule 9 is for
 *    whole-line write-back only), and the write-back of the patched word comes after the
 *    sync: no race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@patch b=@recv object=out fix=invalidate
 * expect-provoke: alloc/dma_w a-before-b=harmful b-before-a=benign
 * race-check: --cache wb=byte
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
    vbx(SEW, VADD, v, 20, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(out, v, sizeof out); /* @recv */
    vbx_sync();
    out[3] = 0; /* @patch */
    vbx_dcache_flush(out, sizeof out);

    printf("out[2] = %ld\n", (long)out[2]);
    return 0;
}

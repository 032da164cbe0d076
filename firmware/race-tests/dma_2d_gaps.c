/*
 * dma_2d_gaps.c - a 2D vbx_dma_to_host writes 4 rows of 32 bytes into a 4 x 64-byte matrix
 * (row stride 64), i.e. the left half of each row. After vbx_sync() the CPU reads only the
 * right halves (the gaps the DMA does not write) through the cache, without invalidating.
 *  - 64-byte lines (--cache line=64): each row is one line, and the line fills of those
 *    reads (pred = the flush-all before the request) also read the left half the DMA wrote:
 *    alloc/dma_w on every row. The CPU never reads those bytes: false sharing. One load
 *    site, one request (one hardware 2D request: the scratchpad stride equals the row
 *    length): one finding.
 *  - the default machine, 32-byte lines: the halves the CPU reads are lines of their own
 *    that the DMA does not write: no race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 * race-check: --cache line=64
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@gap b=@recv object=m fix=align
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define ROWS 4
#define COLS 16 /* words per matrix row (64 bytes) */
#define W 8     /* words per DMA row (32 bytes) */

static int32_t m[ROWS][COLS] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(ROWS * W * 4);
    vbx_set_vl(ROWS * W);
    vbx(SEW, VADD, v, 10, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host_2D(m, v, W * 4, ROWS, COLS * 4, W * 4); /* @recv */
    vbx_sync();
    int32_t sum = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = W; c < COLS; c++)
            sum += m[r][c]; /* @gap */
    vbx_dcache_flush(m, sizeof m);

    printf("gap sum %ld, m[3][7] = %ld\n", (long)sum, (long)m[3][7]);
    return 0;
}

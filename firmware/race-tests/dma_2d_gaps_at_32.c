/*
 * dma_2d_gaps_at_32.c - dma_2d_gaps_64.c (a 2D vbx_dma_to_host writes the left 32 bytes of each
 * 64-byte row of a matrix; after vbx_sync() the CPU reads only the right halves through the
 * cache, without invalidating) on the default machine, 32-byte lines. The halves the CPU
 * reads are lines of their own that the DMA does not write: no race. (Only the line size
 * differs from dma_2d_gaps_64.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
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

    vbx_dma_to_host_2D(m, v, W * 4, ROWS, COLS * 4, W * 4);
    vbx_sync();
    int32_t sum = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = W; c < COLS; c++)
            sum += m[r][c];
    vbx_dcache_flush(m, sizeof m);

    printf("gap sum %ld, m[3][7] = %ld\n", (long)sum, (long)m[3][7]);
    return 0;
}

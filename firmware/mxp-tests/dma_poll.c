/*
 * dma_poll.c - the CPU waits for a DMA by polling its destination's last word in a tight
 * loop, not with vbx_sync(). Each look must see memory as the DMA has made it by then: the
 * accelerator catches up before any CPU access at or after its next effect, also on the
 * direct path of compiled code (the loop runs hundreds of times: it is compiled). With a
 * cache model the poll reads through the uncached alias (a cached read would keep a stale
 * line); with none, through the buffer's cached address, which is DRAM itself.
 *
 * Polling before the sync is a race by the product's definition (nothing orders the look
 * after the DMA's write: ur/dma_w, as race-tests/ur_dma_w): under --race-check, one.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-races: 1 (ur/dma_w: the poll against the DMA's write)
 */
#include "mxpsim.h"
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 4096 /* words: a DMA of thousands of cycles */

int main(void)
{
    vbx_test_init();
    int32_t *out = vbx_shared_malloc(N * 4);
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    if (out == NULL || v == NULL)
        return 1;
    for (int i = 0; i < N; i++)
        out[i] = 0;
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 60, 0); /* v[i] = 60 + i */
    vbx_sync();

    volatile int32_t *poll = out;
    if (MXPSIM_SYSCTL(MXPSIM_SYSCTL_CACHE_SIZE) == 0)
        poll = VBX_CACHED_ADDR(out);
    vbx_dma_to_host(out, v, N * 4);
    /* (Bounded: a look that never sees the DMA's write ends, and the output says so.) */
    unsigned spins = 0;
    int32_t seen;
    while ((seen = poll[N - 1]) == 0 && spins < 10000000)
        spins++;
    vbx_sync();

    int errors = 0;
    for (int i = 0; i < N; i++)
        errors += out[i] != 60 + i;
    printf("last word %s before the sync; %d errors\n", seen == 60 + N - 1 ? "seen" : "never seen", errors);
    return errors != 0;
}

/*
 * wb_dma_r_memcpy.c - the input is copied into a cached buffer with libc's memcpy and sent
 * with vbx_dma_to_vector, no flush in between. The racing stores are inside memcpy; the
 * finding names the user line that calls it (the top user frame). memcpy writes every line
 * of dst, so on every line the last store before the request is memcpy's: one finding,
 * wb/dma_r over the whole buffer.
 *
 * The length is read through a volatile so that gcc calls memcpy instead of expanding it.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: wb/dma_r a=@copy b=@send object=dst fix=flush
 * expect-provoke: wb/dma_r a-before-b=harmful b-before-a=benign
 */
#include <string.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static const int32_t src[N] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
static int32_t dst[N] __attribute__((aligned(64)));
static volatile size_t nbytes = sizeof dst;

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    size_t n = nbytes;
    vbx_dcache_flush_all();

    memcpy(dst, src, n); /* @copy */
    vbx_dma_to_vector(v, dst, n); /* @send */
    vbx_sync();
    vbx_dcache_flush(dst, n);

    printf("v[5] = %ld\n", (long)v[5]);
    return 0;
}

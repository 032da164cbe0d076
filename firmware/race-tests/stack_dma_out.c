/*
 * stack_dma_out.c - a local array (64-byte aligned, so it owns its lines) receives a
 * vbx_dma_to_host. consume() flushes the array's lines before the request (right), syncs,
 * and then reads the array through the cache without invalidating (wrong): the loads' line
 * fills (pred = the flush before the request) may predate the DMA's writes: alloc/dma_w, a
 * stack object of consume(). The flush after the reads keeps later calls, which reuse the
 * stack, out of the picture.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@sum b=@recv object=stack:consume fix=invalidate
 * expect-provoke: alloc/dma_w a-before-b=harmful b-before-a=benign
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

/* Flush the lines of [p, p + len). */
static void flush_lines(const void *p, size_t len)
{
    uint32_t line = mxpsim_dcache_line_size();
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line - 1); a < (uintptr_t)p + len; a += line)
        mxpsim_cbo_flush((const void *)a);
}

__attribute__((noinline)) static int32_t consume(vbx_word_t *v)
{
    int32_t res[N] __attribute__((aligned(64)));
    flush_lines(res, sizeof res);
    vbx_dma_to_host(res, v, sizeof res); /* @recv */
    vbx_sync();
    int32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += res[i]; /* @sum */
    flush_lines(res, sizeof res);
    return sum;
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);
    vbx(SEW, VADD, v, 3, 0);
    vbx_sync();

    int32_t sum = consume(v);

    printf("sum %ld\n", (long)sum);
    return 0;
}

/*
 * dma_1d.c - 1D DMA both ways (mxp-spec.md section 4.1): byte granularity at unaligned
 * addresses on both sides, a zero-length transfer, word data, and a cached (malloc) buffer
 * made coherent with vbx_dcache_flush before each transfer. The CPU reads the scratchpad
 * and the host buffers only after vbx_sync().
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

static void dump(const char *label, const uint8_t *p, int n)
{
    printf("%s:", label);
    for (int i = 0; i < n; i++)
        printf("%s%02x", i % 16 == 0 ? "\n  " : " ", p[i]);
    printf("\n");
}

int main(void)
{
    vbx_test_init();
    int errors = 0;
    uint8_t *src = vbx_shared_malloc(64), *dst = vbx_shared_malloc(64);
    uint8_t *v = vbx_sp_malloc(64);
    for (int i = 0; i < 64; i++) {
        src[i] = (uint8_t)(i * 3 + 1);
        dst[i] = 0xEE;
        v[i] = 0;
    }

    /* 37 bytes from src + 1 to v + 3. */
    vbx_dma_to_vector(v + 3, src + 1, 37);
    vbx_sync();
    dump("to_vector(v + 3, src + 1, 37)", v, 48);

    /* 20 bytes from v + 3 to dst + 5; then a zero-length transfer changes nothing. */
    vbx_dma_to_host(dst + 5, v + 3, 20);
    vbx_dma_to_host(dst, v, 0);
    vbx_sync();
    dump("to_host(dst + 5, v + 3, 20)", dst, 32);
    for (int i = 0; i < 20; i++)
        errors += dst[5 + i] != src[1 + i];

    /* Words: 8 words out and back in, at a scratchpad offset of 2 bytes. */
    int32_t *wsrc = vbx_shared_malloc(32), *wdst = vbx_shared_malloc(32);
    for (int i = 0; i < 8; i++) {
        wsrc[i] = (int32_t)(0x01010101 * (i + 1)) * (i % 2 ? -1 : 1);
        wdst[i] = 0;
    }
    vbx_dma_to_vector(v + 2, wsrc, 32);
    vbx_dma_to_host(wdst, v + 2, 32);
    vbx_sync();
    printf("words:");
    for (int i = 0; i < 8; i++) {
        printf(" %ld", (long)wdst[i]);
        errors += wdst[i] != wsrc[i];
    }
    printf("\n");

    /* A cached buffer: flush its dirty lines before the DMA reads memory, and flush
     * (invalidate) it before the DMA writes memory the CPU will read. */
    uint8_t *cbuf = malloc(40);
    for (int i = 0; i < 40; i++)
        cbuf[i] = (uint8_t)(200 - i);
    vbx_dcache_flush(cbuf, 40);
    vbx_dma_to_vector(v, cbuf, 40);
    vbx_sync();
    int same = 1;
    for (int i = 0; i < 40; i++)
        same &= v[i] == (uint8_t)(200 - i);
    printf("cached source after flush: %s\n", same ? "ok" : "WRONG");
    errors += !same;

    for (int i = 0; i < 40; i++)
        v[i] = (uint8_t)(i + 50);
    vbx_dcache_flush(cbuf, 40);
    vbx_dma_to_host(cbuf, v, 40);
    vbx_sync();
    /* The cache may have fetched the lines again while the DMA ran (nothing orders a line
     * fill after the flush above with the DMA): drop them before reading. */
    vbx_dcache_flush(cbuf, 40);
    same = 1;
    for (int i = 0; i < 40; i++)
        same &= cbuf[i] == (uint8_t)(i + 50);
    printf("cached destination after flush: %s\n", same ? "ok" : "WRONG");
    errors += !same;

    VBX_TEST_END(errors);
    return errors;
}

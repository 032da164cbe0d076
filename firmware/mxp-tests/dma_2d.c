/*
 * dma_2d.c - 2D DMA both ways with positive, negative and zero strides on either side
 * (mxp-spec.md sections 2.4 and 4.2). The API uses the hardware 2D command when the
 * scratchpad stride is at least the row length, and one 1D request per row otherwise
 * (scratchpad stride 0, negative, or overlapping rows); both are exercised. Rows are
 * transferred in order, so when rows land on the same bytes the last row wins.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

static uint8_t *src, *dst, *v;

static void clear_v(void)
{
    vbx_sync();
    for (int i = 0; i < 64; i++)
        v[i] = 0;
}

static void fill_v_clear_dst(void)
{
    vbx_sync();
    for (int i = 0; i < 64; i++)
        v[i] = (uint8_t)(100 + i);
    for (int i = 0; i < 48; i++)
        dst[i] = 0;
}

static void show(const char *label, const uint8_t *p)
{
    vbx_sync();
    printf("%-44s", label);
    for (int i = 0; i < 24; i++)
        printf(" %d", p[i]);
    printf("\n");
}

int main(void)
{
    vbx_test_init();
    src = vbx_shared_malloc(48);
    dst = vbx_shared_malloc(48);
    v = vbx_sp_malloc(64);
    for (int i = 0; i < 48; i++)
        src[i] = (uint8_t)i;

    printf("to_vector_2D (sp_dst, ext_src, row, rows, sp_stride, ext_stride):\n");
    clear_v();
    vbx_dma_to_vector_2D(v, src, 4, 3, 8, 10);
    show("(v, src, 4, 3, 8, 10)", v);
    clear_v();
    vbx_dma_to_vector_2D(v, src + 12, 4, 3, 4, -6);
    show("(v, src + 12, 4, 3, 4, -6)", v);
    clear_v();
    vbx_dma_to_vector_2D(v, src + 5, 4, 3, 4, 0);
    show("(v, src + 5, 4, 3, 4, 0)", v);
    clear_v();
    vbx_dma_to_vector_2D(v, src, 4, 3, 0, 4);
    show("(v, src, 4, 3, 0, 4)", v);
    clear_v();
    vbx_dma_to_vector_2D(v + 8, src, 4, 3, -4, 4);
    show("(v + 8, src, 4, 3, -4, 4)", v);
    clear_v();
    vbx_dma_to_vector_2D(v, src, 4, 3, 2, 8);
    show("(v, src, 4, 3, 2, 8)", v);

    printf("to_host_2D (ext_dst, sp_src, row, rows, ext_stride, sp_stride):\n");
    fill_v_clear_dst();
    vbx_dma_to_host_2D(dst, v, 4, 3, 8, 4);
    show("(dst, v, 4, 3, 8, 4)", dst);
    fill_v_clear_dst();
    vbx_dma_to_host_2D(dst + 16, v, 4, 3, -8, 4);
    show("(dst + 16, v, 4, 3, -8, 4)", dst);
    fill_v_clear_dst();
    vbx_dma_to_host_2D(dst, v, 4, 3, 0, 8);
    show("(dst, v, 4, 3, 0, 8)", dst);
    fill_v_clear_dst();
    vbx_dma_to_host_2D(dst, v, 4, 3, 8, 0);
    show("(dst, v, 4, 3, 8, 0)", dst);
    fill_v_clear_dst();
    vbx_dma_to_host_2D(dst, v + 8, 4, 3, 4, -4);
    show("(dst, v + 8, 4, 3, 4, -4)", dst);
    fill_v_clear_dst();
    vbx_dma_to_host_2D(dst + 1, v + 1, 5, 2, 10, 6);
    show("(dst + 1, v + 1, 5, 2, 10, 6)", dst);

    VBX_TEST_END(0);
    return 0;
}

/*
 * interlocks.c - the four DMA/vector interlocks (mxp-spec.md section 1.4). In each case the
 * second command depends on the first through the scratchpad, and there is NO sync between
 * them: only the engine's interlock makes the result right.
 *   1. DMA to the scratchpad, then a vector instruction reading it: reads the new data.
 *   2. DMA from the scratchpad, then a vector instruction overwriting it: the host gets the
 *      old data.
 *   3. A vector instruction writing, then a DMA from it: the host gets the new data.
 *   4. A vector instruction reading, then a DMA overwriting it: the instruction used the
 *      old data.
 * 256 words (1 KiB) per transfer, so a missing interlock would be visible.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 256

static int count_wrong(const int32_t *p, int32_t base, int32_t step)
{
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += p[i] != base + step * i;
    return wrong;
}

static int report(const char *what, const int32_t *p, int32_t base, int32_t step)
{
    int wrong = count_wrong(p, base, step);
    printf("%s: %ld %ld %ld ... %ld, %d wrong\n", what, (long)p[0], (long)p[1], (long)p[2], (long)p[N - 1], wrong);
    return wrong;
}

int main(void)
{
    vbx_test_init();
    int errors = 0;
    int32_t *h_a = vbx_shared_malloc(N * 4), *h_b = vbx_shared_malloc(N * 4);
    int32_t *h_out2 = vbx_shared_malloc(N * 4), *h_out3 = vbx_shared_malloc(N * 4);
    for (int i = 0; i < N; i++) {
        h_a[i] = i + 1;
        h_b[i] = 1000 + i;
        h_out2[i] = h_out3[i] = -1;
    }
    vbx_word_t *v1 = vbx_sp_malloc(N * 4), *o1 = vbx_sp_malloc(N * 4), *v2 = vbx_sp_malloc(N * 4);
    vbx_word_t *v3 = vbx_sp_malloc(N * 4), *v4 = vbx_sp_malloc(N * 4), *o4 = vbx_sp_malloc(N * 4);
    vbx_set_vl(N);

    /* 1: DMA to vector, then a vector read of the destination. */
    vbx_dma_to_vector(v1, h_a, N * 4);
    vbx(VVW, VADD, o1, v1, v1);
    vbx_sync();
    errors += report("1 vector reads DMA destination", o1, 2, 2);

    /* 2: DMA to host, then a vector write of the source. */
    vbx(SEW, VADD, v2, 5000, 0);
    vbx_sync();
    vbx_dma_to_host(h_out2, v2, N * 4);
    vbx(SEW, VMOV, v2, 7, 0);
    vbx_sync();
    errors += report("2 host gets the old source", h_out2, 5000, 1);
    errors += report("2 scratchpad has the new data", v2, 7, 0);

    /* 3: a vector write, then DMA to host of it. */
    vbx(SEW, VADD, v3, 9000, 0);
    vbx_dma_to_host(h_out3, v3, N * 4);
    vbx_sync();
    errors += report("3 host gets the vector result", h_out3, 9000, 1);

    /* 4: a vector read, then DMA to vector overwriting its source. */
    vbx_dma_to_vector(v4, h_a, N * 4);
    vbx_sync();
    vbx(VVW, VADD, o4, v4, v4);
    vbx_dma_to_vector(v4, h_b, N * 4);
    vbx_sync();
    errors += report("4 vector read the old source", o4, 2, 2);
    errors += report("4 scratchpad has the DMA data", v4, 1000, 1);

    VBX_TEST_END(errors);
    return errors;
}

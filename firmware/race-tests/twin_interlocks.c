/*
 * twin_interlocks.c - DMA and vector work on the same scratchpad bytes with NO vbx_sync()
 * between, ordered by the four interlocks (mxp-spec.md 1.4, detector/src/interlock.rs) and
 * by read/read:
 *   1. vbx_dma_to_vector into v, then an instruction reading v (interlock 1);
 *   2. vbx_dma_to_host from w, then an instruction writing w (interlock 2);
 *   3. an instruction writing x, then vbx_dma_to_host from x (interlock 3);
 *   4. an instruction reading y, then vbx_dma_to_vector into y (interlock 4);
 *   5. vbx_dma_to_host from z and an instruction reading z: both read, no interlock needed.
 * vbx_dma_to_host never conflicts with a vector instruction without an interlock (it only
 * reads the scratchpad; a write after it is case 2, a write before it case 3): there is no
 * dma_w/vec race class. The host buffers are flushed before, and flushed again before the
 * CPU reads them. No race.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static int32_t in1[N] __attribute__((aligned(64)));
static int32_t in4[N] __attribute__((aligned(64)));
static int32_t out2[N] __attribute__((aligned(64)));
static int32_t out3[N] __attribute__((aligned(64)));
static int32_t out5[N] __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(N * 4), *o1 = vbx_sp_malloc(N * 4);
    vbx_word_t *w = vbx_sp_malloc(N * 4), *x = vbx_sp_malloc(N * 4);
    vbx_word_t *y = vbx_sp_malloc(N * 4), *o4 = vbx_sp_malloc(N * 4);
    vbx_word_t *z = vbx_sp_malloc(N * 4), *o5 = vbx_sp_malloc(N * 4);
    for (int i = 0; i < N; i++) {
        in1[i] = i + 1;
        in4[i] = 1000 + i;
    }
    vbx_set_vl(N);
    vbx(SEW, VADD, w, 5000, 0);
    vbx(SEW, VADD, y, 2, 0);
    vbx(SEW, VADD, z, 30, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_vector(v, in1, sizeof in1);
    vbx(VVW, VADD, o1, v, v);
    vbx_dma_to_host(out2, w, sizeof out2);
    vbx(SEW, VMOV, w, 7, 0);
    vbx(SEW, VADD, x, 9000, 0);
    vbx_dma_to_host(out3, x, sizeof out3);
    vbx(VVW, VADD, o4, y, y);
    vbx_dma_to_vector(y, in4, sizeof in4);
    vbx_dma_to_host(out5, z, sizeof out5);
    vbx(VVW, VADD, o5, z, z);
    vbx_sync();
    vbx_dcache_flush_all();

    printf("%ld %ld %ld %ld %ld\n", (long)o1[1], (long)out2[1], (long)out3[1], (long)o4[1],
           (long)out5[1]);
    return 0;
}

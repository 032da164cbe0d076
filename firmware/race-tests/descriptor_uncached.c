/*
 * descriptor_uncached.c - a 32-byte descriptor of eight fields, written by
 * vbx_dma_to_host and read by the CPU through the uncached alias, one struct copy on one
 * line, BEFORE vbx_sync(). Eight loads, eight fields, all ur/dma_w with the same top user
 * frames: ONE finding, on the whole struct.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: ur/dma_w a=@read b=@recv object=desc fix=sync
 * expect-provoke: ur/dma_w a-before-b=benign b-before-a=harmful
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

struct rx_desc {
    uint32_t status;
    uint32_t len;
    uint32_t addr;
    uint32_t next;
    uint32_t flags;
    uint32_t crc;
    uint32_t seq;
    uint32_t stamp;
};

static struct rx_desc desc __attribute__((aligned(64)));

int main(void)
{
    vbx_test_init();
    volatile struct rx_desc *udesc = mxpsim_uncached(&desc);
    vbx_word_t *v = vbx_sp_malloc(sizeof desc);
    vbx_set_vl(sizeof desc / 4);
    vbx(SEW, VADD, v, 0x100, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(&desc, v, sizeof desc); /* @recv */
    struct rx_desc d = *udesc; /* @read */
    vbx_sync();

    uint32_t sum = d.status + d.len + d.addr + d.next + d.flags + d.crc + d.seq + d.stamp;
    printf("descriptor sum %lu\n", (unsigned long)sum);
    return 0;
}

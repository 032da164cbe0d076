/*
 * descriptor_cached.c - a 32-byte descriptor of eight fields (one 32-byte line), written by
 * vbx_dma_to_host and read by the CPU through the cache, one struct copy on one line, BEFORE
 * vbx_sync(). Each load's line fill (alloc; succ = the load, after the request) may come
 * before the DMA's write: alloc/dma_w, eight loads with the same top user frames: ONE
 * finding, on the whole struct. The second copy, after the sync and a flush, is correct.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: alloc/dma_w a=@read b=@recv object=desc fix=sync
 * expect-provoke: alloc/dma_w a-before-b=benign b-before-a=harmful
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

static uint32_t checksum(const struct rx_desc *d)
{
    return d->status + d->len + d->addr + d->next + d->flags + d->crc + d->seq + d->stamp;
}

int main(void)
{
    vbx_test_init();
    vbx_word_t *v = vbx_sp_malloc(sizeof desc);
    vbx_set_vl(sizeof desc / 4);
    vbx(SEW, VADD, v, 0x100, 0);
    vbx_sync();
    vbx_dcache_flush_all();

    vbx_dma_to_host(&desc, v, sizeof desc); /* @recv */
    struct rx_desc early = desc; /* @read */
    vbx_sync();
    vbx_dcache_flush(&desc, sizeof desc);
    struct rx_desc late = desc;

    printf("descriptor sums %lu %lu\n", (unsigned long)checksum(&early),
           (unsigned long)checksum(&late));
    return 0;
}

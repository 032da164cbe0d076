/*
 * shared_malloc.c - vbx_shared_malloc's layout (mxp-spec.md section 5.2) and the remap and
 * flush functions of vbx_port.h. Needs the uncached alias and the system-control registers,
 * not the MXP.
 *
 * For each size: the user pointer is an uncached-alias pointer on a VBX_PADDING() boundary;
 * the pointer-sized slot below it holds the raw block (also an alias pointer), 4..16 bytes
 * lower, and the first padding boundary at or after raw + 4; at least VBX_PADDING() + 4
 * bytes of the block follow the user's bytes. Then data written uncached is seen through
 * the cached view, data written through the cached view reaches the uncached alias after
 * vbx_dcache_flush, and the remap functions convert between the two.
 *
 * qemu: skip (no uncached alias or mxpsim system-control registers in QEMU)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

static int errors;

static void check(const char *what, int ok)
{
    printf("  %s: %s\n", what, ok ? "yes" : "NO");
    if (!ok)
        errors++;
}

static int is_alias(uintptr_t p)
{
    return p >= MXPSIM_UNCACHED_ALIAS && p < MXPSIM_UNCACHED_ALIAS + MXPSIM_DRAM_SIZE;
}

int main(void)
{
    static const size_t sizes[] = {1, 16, 100, 4096};
    printf("VBX_PADDING() = %d\n", VBX_PADDING());
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *p = vbx_shared_malloc(n);
        uintptr_t user = (uintptr_t)p;
        uintptr_t raw = (uintptr_t)((void **)p)[-1];
        printf("vbx_shared_malloc(%u):\n", (unsigned)n);
        check("aligned to VBX_PADDING()", user % VBX_PADDING() == 0);
        check("uncached alias", is_alias(user));
        check("back-pointer is an alias pointer", is_alias(raw));
        check("4..16 bytes above the block", user - raw >= sizeof(void *) && user - raw <= VBX_PADDING());
        check("first boundary after raw + 4", user == VBX_PAD_UP(raw + sizeof(void *), (uintptr_t)VBX_PADDING()));
        check("private tail >= padding + 4",
              raw + n + sizeof(void *) + 2 * VBX_PADDING() - (user + n) >= VBX_PADDING() + sizeof(void *));
        check("DMA address is the DRAM address", (uintptr_t)VBX_DMA_ADDR(p, n) == user - MXPSIM_UNCACHED_ALIAS + MXPSIM_DRAM_BASE);

        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)(i * 7 + 1);
        uint8_t *c = vbx_remap_cached(p, n);
        check("cached view is the DRAM address", (uintptr_t)c == (uintptr_t)VBX_DMA_ADDR(p, n));
        int same = 1;
        for (size_t i = 0; i < n; i++)
            same &= c[i] == (uint8_t)(i * 7 + 1);
        check("cached view reads the uncached writes", same);
        c[0] = 0xAA;
        c[n - 1] = 0x55;
        vbx_dcache_flush(c, n);
        check("flushed cached writes reach the alias", (n == 1 || p[0] == 0xAA) && p[n - 1] == 0x55);
        c[0] = 0x11;
        check("vbx_remap_uncached(cached) == alias (and flushes the line)", vbx_remap_uncached(c) == p && p[0] == 0x11);
        c[n - 1] = 0x22;
        check("vbx_remap_uncached_flush(cached, n) == alias", vbx_remap_uncached_flush(c, n) == p && p[n - 1] == 0x22);
        vbx_shared_free(p);
    }

    printf("vbx_uncached_malloc(40):\n");
    uint32_t *u = vbx_uncached_malloc(40);
    check("alias pointer", is_alias((uintptr_t)u));
    u[9] = 0x12345678;
    check("reads back", u[9] == 0x12345678);
    vbx_uncached_free(u);

    printf("vbx_shared_alloca_nodebug:\n");
    static uint8_t area[64 + VBX_CPU_DCACHE_LINE_SIZE];
    uint8_t *s = vbx_shared_alloca_nodebug(64, area + 1);
    check("aligned alias of the area", (uintptr_t)s % VBX_PADDING() == 0 && is_alias((uintptr_t)s) &&
                                           (uintptr_t)VBX_CACHED_ADDR(s) > (uintptr_t)area &&
                                           (uintptr_t)VBX_CACHED_ADDR(s) <= (uintptr_t)area + VBX_PADDING());

    printf("misc:\n");
    vbx_shared_free(NULL);
    vbx_dcache_flush_all();
    vbx_dcache_flush_line(area);
    vbx_dcache_flush(area, 0);
    check("VBX_UNCACHED_ADDR/VBX_CACHED_ADDR round trip",
          VBX_CACHED_ADDR(VBX_UNCACHED_ADDR(area)) == (void *)area && VBX_UNCACHED_ADDR(VBX_UNCACHED_ADDR(area)) == VBX_UNCACHED_ADDR(area));

    VBX_TEST_END(errors);
    return errors;
}

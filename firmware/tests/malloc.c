/*
 * malloc.c - picolibc's heap: malloc/calloc/realloc/free of many sizes,
 * each block filled with its own byte pattern and verified before being
 * freed; frees in mixed order; calloc must return zeroed memory even when
 * it reuses freed (dirty) blocks; realloc must preserve the old contents
 * when growing and shrinking; a too-large request must fail with NULL.
 * Only counts and content checksums are printed (no addresses). Returns 1
 * on any failure.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBLOCKS 64

static unsigned failures;

static void fail(const char *what, unsigned i)
{
    failures++;
    printf("FAIL: %s (block %u)\n", what, i);
}

static const size_t sizes[] = {1,   2,   3,    7,    8,    15,   16,    17,   31,  32,
                               33,  63,  64,   100,  255,  256,  257,   1000, 1023, 1024,
                               4095, 4096, 4097, 10000, 65536, 100000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static uint8_t pattern(unsigned block, size_t off)
{
    return (uint8_t)(block * 37 + off * 7 + 1);
}

static void fill(uint8_t *p, size_t n, unsigned block)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pattern(block, i);
}

/* Returns 1 if p[0..n) still holds block's pattern. */
static int intact(const uint8_t *p, size_t n, unsigned block)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(block, i))
            return 0;
    return 1;
}

static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static uint8_t *blk[NBLOCKS];
static size_t len[NBLOCKS];

int main(void)
{
    unsigned misaligned = 0;
    size_t total = 0;
    uint32_t sum = 2166136261u;

    /* 1. malloc NBLOCKS blocks of assorted sizes, fill them */
    for (unsigned i = 0; i < NBLOCKS; i++) {
        len[i] = sizes[(i * 7) % NSIZES];
        blk[i] = malloc(len[i]);
        if (!blk[i]) {
            fail("malloc returned NULL", i);
            continue;
        }
        if ((uintptr_t)blk[i] % 8)
            misaligned++;
        fill(blk[i], len[i], i);
        total += len[i];
    }
    printf("malloc: %u blocks, %lu bytes\n", NBLOCKS, (unsigned long)total);

    /* 2. verify all (no block overlaps another), checksum the contents */
    for (unsigned i = 0; i < NBLOCKS; i++) {
        if (blk[i] && !intact(blk[i], len[i], i))
            fail("contents corrupted", i);
        if (blk[i])
            sum = fnv1a(sum, blk[i], len[i]);
    }
    printf("contents checksum: %08lx\n", (unsigned long)sum);

    /* 3. free the odd blocks, then every third even one, in descending order */
    unsigned freed = 0;
    for (unsigned i = 1; i < NBLOCKS; i += 2, freed++) {
        free(blk[i]);
        blk[i] = NULL;
    }
    for (int i = NBLOCKS - 2; i >= 0; i -= 6, freed++) {
        free(blk[i]);
        blk[i] = NULL;
    }
    printf("freed %u blocks in mixed order\n", freed);

    /* 4. calloc into the holes: must be zero even though the memory is dirty */
    unsigned nonzero = 0, ncalloc = 0;
    for (unsigned i = 0; i < NBLOCKS; i++) {
        if (blk[i])
            continue;
        size_t n = len[i] / 2 + 1;
        uint8_t *p = calloc(n, 1);
        if (!p) {
            fail("calloc returned NULL", i);
            continue;
        }
        if ((uintptr_t)p % 8)
            misaligned++;
        for (size_t k = 0; k < n; k++)
            nonzero += p[k] != 0;
        fill(p, n, i + 1000);
        blk[i] = p;
        len[i] = n;
        ncalloc++;
    }
    printf("calloc: %u blocks, nonzero bytes found: %u\n", ncalloc, nonzero);
    if (nonzero)
        fail("calloc memory not zeroed", 0);
    uint32_t *arr = calloc(1000, sizeof *arr);
    unsigned arr_nonzero = 0;
    for (unsigned k = 0; arr && k < 1000; k++)
        arr_nonzero += arr[k] != 0;
    printf("calloc(1000, 4): %s, nonzero: %u\n", arr ? "ok" : "NULL", arr_nonzero);
    if (!arr || arr_nonzero)
        fail("calloc(1000, 4)", 0);

    /* 5. realloc every block: grow (x3 + 5) the even ones, shrink the odd ones */
    unsigned nrealloc = 0;
    for (unsigned i = 0; i < NBLOCKS; i++) {
        size_t old = len[i];
        size_t n = (i % 2) ? old / 3 + 1 : old * 3 + 5;
        size_t keep = old < n ? old : n;
        uint8_t *copy = malloc(keep);
        if (!copy) {
            fail("malloc for copy", i);
            continue;
        }
        memcpy(copy, blk[i], keep);
        uint8_t *p = realloc(blk[i], n);
        if (!p) {
            fail("realloc returned NULL", i);
            free(copy);
            continue;
        }
        if ((uintptr_t)p % 8)
            misaligned++;
        if (memcmp(p, copy, keep) != 0)
            fail("realloc lost contents", i);
        free(copy);
        fill(p, n, i + 2000);
        blk[i] = p;
        len[i] = n;
        nrealloc++;
    }
    sum = 2166136261u;
    for (unsigned i = 0; i < NBLOCKS; i++) {
        if (!intact(blk[i], len[i], i + 2000))
            fail("contents corrupted after realloc", i);
        sum = fnv1a(sum, blk[i], len[i]);
    }
    printf("realloc: %u blocks, checksum %08lx\n", nrealloc, (unsigned long)sum);

    /* 6. realloc(NULL, n) behaves like malloc */
    uint8_t *r = realloc(NULL, 123);
    printf("realloc(NULL, 123): %s\n", r ? "ok" : "NULL");
    if (!r)
        fail("realloc(NULL, 123)", 0);
    else
        fill(r, 123, 7);

    /* 7. free everything, in a scrambled order */
    for (unsigned k = 0; k < NBLOCKS; k++) {
        unsigned i = (k * 29 + 11) % NBLOCKS; /* 29 is coprime with 64 */
        free(blk[i]);
        blk[i] = NULL;
    }
    free(arr);
    free(r);
    free(NULL);
    printf("freed everything\n");

    /* 8. after everything is freed, a big block fits; an impossible one fails */
    size_t big_n = 8u << 20;
    uint8_t *big = malloc(big_n);
    if (big) {
        memset(big, 0x5a, big_n);
        printf("malloc(8 MiB): ok, last byte %02x\n", big[big_n - 1]);
    } else {
        printf("malloc(8 MiB): NULL\n");
        fail("malloc(8 MiB)", 0);
    }
    free(big);
    void *huge = malloc(64u << 20);
    printf("malloc(64 MiB): %s\n", huge ? "not NULL" : "NULL");
    if (huge)
        fail("malloc(64 MiB) should fail", 0);

    printf("all pointers 8-byte aligned: %s\n", misaligned ? "no" : "yes");
    if (misaligned)
        fail("misaligned pointer", misaligned);

    printf("malloc: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}

/*
 * cpubench.c - CPU-bound benchmark for mxpsim (RV32IM, no I/O in the timed
 * part). Several phases, each printing a checksum so results can be
 * compared across simulators:
 *   sort      quicksort (iterative, median of three) and heapsort of
 *             pseudo-random arrays (LCG), both verified sorted
 *   hash      CRC-32 (table-driven) and FNV-1a over a buffer, repeatedly
 *   sieve     sieve of Eratosthenes, primes below 2,000,000 (148933)
 *   modexp    modular exponentiation with mul/remu (32-bit products)
 *   divmix    signed/unsigned division and remainder, gcd (div-heavy)
 *   matmul    64x64 int32 matrix multiplication (mul-heavy)
 * About 1.97e8 instructions in total (measured with QEMU -icount: see
 * firmware/README.md).
 *
 * Build with -DCPUBENCH_INSTRET to also print each phase's minstret delta
 * (host/simulator dependent: NOT part of cpubench.expected).
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- utils */

static uint32_t lcg_state;

static void lcg_seed(uint32_t s)
{
    lcg_state = s;
}

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state ^ (lcg_state >> 16);
}

static uint32_t fnv1a(uint32_t h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}
#define FNV_INIT 2166136261u

#ifdef CPUBENCH_INSTRET
static uint64_t instret(void)
{
    uint32_t hi, lo, hi2;
    do {
        __asm__ volatile(".option push\n.option arch, +zicsr\n"
                         "csrr %0, minstreth\ncsrr %1, minstret\ncsrr %2, minstreth\n"
                         ".option pop"
                         : "=r"(hi), "=r"(lo), "=r"(hi2));
    } while (hi != hi2);
    return (uint64_t)hi << 32 | lo;
}
static uint64_t phase_start, total_start;
#define PHASE_BEGIN() (phase_start = instret())
#define PHASE_END(name)                                                       \
    printf("  [%s: %llu instructions]\n", name, (unsigned long long)(instret() - phase_start))
#else
#define PHASE_BEGIN() ((void)0)
#define PHASE_END(name) ((void)0)
#endif

static unsigned failures;

/* ----------------------------------------------------------------- sort */

#define NSORT 60000
static uint32_t arr[NSORT];

static void swap(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

static void quicksort(uint32_t *a, int n)
{
    int stack[64][2];
    int sp = 0;
    stack[sp][0] = 0;
    stack[sp][1] = n - 1;
    sp++;
    while (sp > 0) {
        sp--;
        int lo = stack[sp][0], hi = stack[sp][1];
        while (hi - lo > 16) {
            int mid = lo + (hi - lo) / 2;
            if (a[mid] < a[lo])
                swap(&a[mid], &a[lo]);
            if (a[hi] < a[lo])
                swap(&a[hi], &a[lo]);
            if (a[hi] < a[mid])
                swap(&a[hi], &a[mid]);
            uint32_t pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (a[i] < pivot)
                    i++;
                while (a[j] > pivot)
                    j--;
                if (i <= j) {
                    swap(&a[i], &a[j]);
                    i++;
                    j--;
                }
            }
            /* recurse into the smaller part (push it), loop on the larger */
            if (j - lo < hi - i) {
                if (lo < j) {
                    stack[sp][0] = lo;
                    stack[sp][1] = j;
                    sp++;
                }
                lo = i;
            } else {
                if (i < hi) {
                    stack[sp][0] = i;
                    stack[sp][1] = hi;
                    sp++;
                }
                hi = j;
            }
        }
        for (int k = lo + 1; k <= hi; k++) { /* insertion sort for short runs */
            uint32_t v = a[k];
            int m = k - 1;
            while (m >= lo && a[m] > v) {
                a[m + 1] = a[m];
                m--;
            }
            a[m + 1] = v;
        }
    }
}

static void sift_down(uint32_t *a, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[root] >= a[child])
            return;
        swap(&a[root], &a[child]);
        root = child;
    }
}

static void heapsort(uint32_t *a, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(a, i, n);
    for (int i = n - 1; i > 0; i--) {
        swap(&a[0], &a[i]);
        sift_down(a, 0, i);
    }
}

static int is_sorted(const uint32_t *a, int n)
{
    for (int i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}

static void phase_sort(void)
{
    PHASE_BEGIN();
    uint32_t sum = FNV_INIT;
    int sorted = 1;
    for (int round = 0; round < 2; round++) {
        lcg_seed(0x1234u + round);
        for (int i = 0; i < NSORT; i++)
            arr[i] = lcg();
        quicksort(arr, NSORT);
        sorted &= is_sorted(arr, NSORT);
        sum = fnv1a(sum, arr, sizeof arr);

        lcg_seed(0xabcdu + round);
        for (int i = 0; i < NSORT; i++)
            arr[i] = lcg() % 100000u; /* many duplicates */
        heapsort(arr, NSORT);
        sorted &= is_sorted(arr, NSORT);
        sum = fnv1a(sum, arr, sizeof arr);
    }
    PHASE_END("sort");
    printf("sort:   %s, checksum %08lx\n", sorted ? "sorted" : "NOT SORTED", (unsigned long)sum);
    failures += !sorted;
}

/* ----------------------------------------------------------------- hash */

#define HASHBUF 65536
static uint8_t hbuf[HASHBUF];
static uint32_t crc_table[256];

static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void phase_hash(void)
{
    PHASE_BEGIN();
    crc32_init();
    static const char check[] = "123456789";
    uint32_t crc_check = crc32(0, (const uint8_t *)check, 9); /* standard check value */
    lcg_seed(42);
    for (int i = 0; i < HASHBUF; i++)
        hbuf[i] = (uint8_t)lcg();
    uint32_t crc = 0, fnv = FNV_INIT;
    for (int round = 0; round < 32; round++) {
        crc = crc32(crc, hbuf, HASHBUF);
        fnv = fnv1a(fnv, hbuf, HASHBUF);
        hbuf[round * 97] ^= (uint8_t)crc; /* make each round differ */
    }
    PHASE_END("hash");
    printf("hash:   crc32(\"123456789\")=%08lx crc32=%08lx fnv1a=%08lx\n",
           (unsigned long)crc_check, (unsigned long)crc, (unsigned long)fnv);
    failures += crc_check != 0xcbf43926u;
}

/* ---------------------------------------------------------------- sieve */

#define SIEVE_N 2000000
static uint8_t composite[SIEVE_N];

static void phase_sieve(void)
{
    PHASE_BEGIN();
    memset(composite, 0, sizeof composite);
    unsigned count = 0;
    uint32_t sum = 0;
    for (uint32_t i = 2; i < SIEVE_N; i++) {
        if (composite[i])
            continue;
        count++;
        sum += i;
        for (uint32_t j = i * i; i < 46341 && j < SIEVE_N; j += i)
            composite[j] = 1;
    }
    PHASE_END("sieve");
    printf("sieve:  %u primes below %u, sum mod 2^32 %08lx\n", count, SIEVE_N,
           (unsigned long)sum);
    failures += count != 148933;
}

/* --------------------------------------------------------------- modexp */

/* b^e mod m, for m < 2^16 so every product fits in 32 bits */
static uint32_t powmod(uint32_t b, uint32_t e, uint32_t m)
{
    uint32_t r = 1;
    b %= m;
    while (e) {
        if (e & 1)
            r = r * b % m;
        b = b * b % m;
        e >>= 1;
    }
    return r;
}

static void phase_modexp(void)
{
    PHASE_BEGIN();
    static const uint32_t mods[] = {65521, 65519, 65497, 40009, 30011, 257};
    uint32_t acc = 0;
    unsigned fermat_ok = 0, n = 0;
    for (unsigned k = 0; k < sizeof mods / sizeof mods[0]; k++) {
        uint32_t m = mods[k];
        for (uint32_t b = 2; b < 16000; b++) {
            uint32_t r = powmod(b, 65537, m);
            acc = acc * 31 + r;
            /* Fermat: b^(m-1) = 1 mod m for prime m, b not a multiple of m */
            if (b % m != 0) {
                fermat_ok += powmod(b, m - 1, m) == 1;
                n++;
            }
        }
    }
    PHASE_END("modexp");
    printf("modexp: checksum %08lx, fermat %u/%u\n", (unsigned long)acc, fermat_ok, n);
    failures += fermat_ok != n;
}

/* --------------------------------------------------------------- divmix */

static uint32_t gcd(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void phase_divmix(void)
{
    PHASE_BEGIN();
    lcg_seed(7);
    uint32_t acc = 0, g = 0;
    for (int i = 0; i < 600000; i++) {
        int32_t a = (int32_t)lcg();
        int32_t b = (int32_t)(lcg() >> (i & 15)) | 1;
        if (i & 1)
            b = -b;
        if (a == INT32_MIN && b == -1) /* undefined in C (defined on RISC-V) */
            b = 3;
        acc += (uint32_t)(a / b) ^ (uint32_t)(a % b);
        acc += (uint32_t)a / (uint32_t)b + (uint32_t)a % (uint32_t)b;
        if ((i & 7) == 0)
            g += gcd((uint32_t)a, (uint32_t)b);
    }
    PHASE_END("divmix");
    printf("divmix: checksum %08lx, gcd sum %08lx\n", (unsigned long)acc, (unsigned long)g);
}

/* --------------------------------------------------------------- matmul */

#define MAT 64
static int32_t ma[MAT][MAT], mb[MAT][MAT], mc[MAT][MAT];

static void phase_matmul(void)
{
    PHASE_BEGIN();
    lcg_seed(99);
    for (int i = 0; i < MAT; i++)
        for (int j = 0; j < MAT; j++) {
            ma[i][j] = (int32_t)(lcg() % 2001) - 1000;
            mb[i][j] = (int32_t)(lcg() % 2001) - 1000;
        }
    uint32_t sum = FNV_INIT;
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < MAT; i++)
            for (int j = 0; j < MAT; j++) {
                int32_t s = 0;
                for (int k = 0; k < MAT; k++)
                    s += ma[i][k] * mb[k][j];
                mc[i][j] = s;
            }
        sum = fnv1a(sum, mc, sizeof mc);
        /* feed the result back so rounds differ (keep values small) */
        for (int i = 0; i < MAT; i++)
            for (int j = 0; j < MAT; j++)
                ma[i][j] = mc[i][j] % 1009;
    }
    PHASE_END("matmul");
    printf("matmul: checksum %08lx, c[0][0]=%ld c[63][63]=%ld\n", (unsigned long)sum,
           (long)mc[0][0], (long)mc[MAT - 1][MAT - 1]);
}

int main(void)
{
#ifdef CPUBENCH_INSTRET
    total_start = instret();
#endif
    printf("cpubench: start\n");
    phase_sort();
    phase_hash();
    phase_sieve();
    phase_modexp();
    phase_divmix();
    phase_matmul();
#ifdef CPUBENCH_INSTRET
    printf("  [total: %llu instructions]\n", (unsigned long long)(instret() - total_start));
#endif
    printf("cpubench: %s\n", failures ? "FAILED" : "done");
    return failures != 0;
}

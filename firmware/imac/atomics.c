/*
 * atomics.c - the A extension from C11 <stdatomic.h> (which gcc compiles to amo*.w and
 * lr.w/sc.w loops) and from inline assembly for what C11 has no operator for (signed and
 * unsigned min/max, and sc.w's failure cases). Built -march=rv32imac: compressed code too.
 * Every expected value follows from the ISA manual's definitions.
 *
 * expect-exit: 0
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic uint32_t counter;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static volatile uint32_t word;
static volatile uint32_t other;

#define AMO(name)                                                                    \
    static uint32_t name(volatile uint32_t *p, uint32_t v)                          \
    {                                                                                \
        uint32_t old;                                                                \
        __asm__ volatile(#name ".w %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v) : "memory"); \
        return old;                                                                  \
    }
AMO(amomin)
AMO(amomax)
AMO(amominu)
AMO(amomaxu)

static uint32_t lr(volatile uint32_t *p)
{
    uint32_t v;
    __asm__ volatile("lr.w %0, (%1)" : "=r"(v) : "r"(p) : "memory");
    return v;
}

/* sc.w: 0 when the store happened, 1 when it did not. */
static uint32_t sc(volatile uint32_t *p, uint32_t v)
{
    uint32_t failed;
    __asm__ volatile("sc.w %0, %2, (%1)" : "=r"(failed) : "r"(p), "r"(v) : "memory");
    return failed;
}

static void show_minmax(const char *name, uint32_t (*f)(volatile uint32_t *, uint32_t), uint32_t m, uint32_t v)
{
    word = m;
    uint32_t old = f(&word, v);
    printf("%-8s mem 0x%08lx, v 0x%08lx: old 0x%08lx, new 0x%08lx\n", name, (unsigned long)m, (unsigned long)v,
           (unsigned long)old, (unsigned long)word);
}

int main(void)
{
    atomic_store(&counter, 10);
    printf("fetch_add  %lu\n", (unsigned long)atomic_fetch_add(&counter, 5)); /* 10 -> 15 */
    printf("fetch_sub  %lu\n", (unsigned long)atomic_fetch_sub(&counter, 20)); /* 15 -> 0xfffffffb */
    printf("value      0x%08lx\n", (unsigned long)atomic_load(&counter));
    printf("fetch_and  0x%08lx\n", (unsigned long)atomic_fetch_and(&counter, 0xff00ff0fu)); /* -> 0xff00ff0b */
    printf("fetch_or   0x%08lx\n", (unsigned long)atomic_fetch_or(&counter, 0x00f00000u)); /* -> 0xfff0ff0b */
    printf("fetch_xor  0x%08lx\n", (unsigned long)atomic_fetch_xor(&counter, 0xffffffffu)); /* -> 0x000f00f4 */
    printf("exchange   0x%08lx\n", (unsigned long)atomic_exchange(&counter, 7)); /* -> 7 */

    uint32_t expected = 7;
    int ok = atomic_compare_exchange_strong(&counter, &expected, 8);
    printf("cas 7->8   ok %d, seen %lu, now %lu\n", ok, (unsigned long)expected, (unsigned long)atomic_load(&counter));
    expected = 7;
    ok = atomic_compare_exchange_strong(&counter, &expected, 9);
    printf("cas 7->9   ok %d, seen %lu, now %lu\n", ok, (unsigned long)expected, (unsigned long)atomic_load(&counter));

    int first = atomic_flag_test_and_set(&lock);
    int second = atomic_flag_test_and_set(&lock);
    atomic_flag_clear(&lock);
    int third = atomic_flag_test_and_set(&lock);
    printf("flag       %d %d %d\n", first, second, third);

    show_minmax("amomin", amomin, 0x80000000u, 1);   /* signed: INT_MIN stays */
    show_minmax("amomax", amomax, 0x80000000u, 1);   /* 1 */
    show_minmax("amominu", amominu, 0x80000000u, 1); /* 1 */
    show_minmax("amomaxu", amomaxu, 0x80000000u, 1); /* 0x80000000 stays */
    show_minmax("amomin", amomin, 0xfffffffeu, 0xffffffffu); /* -2 */

    /* lr/sc: an sc.w pairs with the lr.w before it and succeeds once. */
    word = 100;
    uint32_t seen = lr(&word);
    uint32_t s1 = sc(&word, seen + 1);
    uint32_t s2 = sc(&word, 500);
    printf("lr/sc      seen %lu, sc %lu then %lu, word %lu\n", (unsigned long)seen, (unsigned long)s1,
           (unsigned long)s2, (unsigned long)word);
    /* A reservation of another word does not let sc.w store here. */
    other = 1;
    (void)lr(&other);
    uint32_t s3 = sc(&word, 600);
    printf("sc other   %lu, word %lu\n", (unsigned long)s3, (unsigned long)word);
    /* A store that changes the reserved word in between makes sc.w fail. */
    (void)lr(&word);
    word = 700;
    uint32_t s4 = sc(&word, 800);
    printf("sc stored  %lu, word %lu\n", (unsigned long)s4, (unsigned long)word);

    /* A lock-free increment loop, as code without amoadd would write it. */
    word = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t v;
        do {
            v = lr(&word);
        } while (sc(&word, v + 3));
    }
    printf("lr/sc loop %lu\n", (unsigned long)word);
    return 0;
}

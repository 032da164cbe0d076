/*
 * loadstore.c - lb/lbu/lh/lhu/lw and sb/sh/sw, forced with inline asm:
 * sign/zero extension (0x80, 0xff, 0x7f, 0x8000, 0xffff, 0x7fff, ...),
 * little-endian byte order, sb/sh leaving neighbouring bytes alone,
 * negative and maximum immediate offsets, and MISALIGNED halfword/word
 * loads and stores (incl. across an 8-byte and a 4 KiB page boundary),
 * which must behave like the equivalent sequence of byte accesses.
 * Every value is printed and compared with the expected one; returns 1 on
 * any mismatch.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned checks, failures;

static void show(const char *what, uint32_t got, uint32_t want)
{
    printf("%s = %08lx\n", what, (unsigned long)got);
    checks++;
    if (got != want) {
        failures++;
        printf("  MISMATCH %s: got %08lx want %08lx\n", what, (unsigned long)got,
               (unsigned long)want);
    }
}

/* insn rd, off(base) */
#define LOAD(insn, base, off)                                                 \
    ({                                                                        \
        uint32_t r_;                                                          \
        __asm__ volatile(insn " %0, " #off "(%1)"                             \
                         : "=r"(r_)                                           \
                         : "r"(base)                                          \
                         : "memory");                                         \
        r_;                                                                   \
    })
/* insn value, off(base) */
#define STORE(insn, val, base, off)                                           \
    __asm__ volatile(insn " %0, " #off "(%1)" : : "r"(val), "r"(base) : "memory")

static uint8_t buf[32] __attribute__((aligned(8)));
static uint8_t page[8192] __attribute__((aligned(4096)));

/* buf[i] = i * 0x11 (mod 256): 00 11 22 ... ee ff 10 21 32 ... */
static void fill_pattern(void)
{
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 0x11);
}

static void dump(const char *what, const uint8_t *p, unsigned n)
{
    printf("%s:", what);
    for (unsigned i = 0; i < n; i++)
        printf(" %02x", p[i]);
    printf("\n");
}

static void test_extension(void)
{
    printf("== sign/zero extension\n");
    static const uint8_t bytes[] = {0x80, 0xff, 0x7f, 0x00, 0x01};
    char name[32];
    for (unsigned i = 0; i < sizeof bytes; i++) {
        STORE("sb", bytes[i], buf, 0);
        snprintf(name, sizeof name, "lb  %02x", bytes[i]);
        show(name, LOAD("lb", buf, 0), (uint32_t)(int32_t)(int8_t)bytes[i]);
        snprintf(name, sizeof name, "lbu %02x", bytes[i]);
        show(name, LOAD("lbu", buf, 0), bytes[i]);
    }
    static const uint16_t halves[] = {0x8000, 0xffff, 0x7fff, 0x0080, 0x1234};
    for (unsigned i = 0; i < sizeof halves / sizeof halves[0]; i++) {
        STORE("sh", halves[i], buf, 2);
        snprintf(name, sizeof name, "lh  %04x", halves[i]);
        show(name, LOAD("lh", buf, 2), (uint32_t)(int32_t)(int16_t)halves[i]);
        snprintf(name, sizeof name, "lhu %04x", halves[i]);
        show(name, LOAD("lhu", buf, 2), halves[i]);
    }
    static const uint32_t words[] = {0x80000000, 0xffffffff, 0x7fffffff, 0x12345678};
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) {
        STORE("sw", words[i], buf, 4);
        snprintf(name, sizeof name, "lw  %08lx", (unsigned long)words[i]);
        show(name, LOAD("lw", buf, 4), words[i]);
    }
}

static void test_endian(void)
{
    printf("== little endian, partial stores\n");
    memset(buf, 0, sizeof buf);
    STORE("sw", 0x11223344u, buf, 0);
    dump("sw 11223344 -> bytes", buf, 4);
    show("lbu +0", LOAD("lbu", buf, 0), 0x44);
    show("lbu +3", LOAD("lbu", buf, 3), 0x11);
    show("lhu +0", LOAD("lhu", buf, 0), 0x3344);
    show("lhu +2", LOAD("lhu", buf, 2), 0x1122);

    STORE("sb", 0xa1u, buf, 4);
    STORE("sb", 0xb2u, buf, 5);
    STORE("sb", 0xc3u, buf, 6);
    STORE("sb", 0xd4u, buf, 7);
    show("sb a1 b2 c3 d4, lw", LOAD("lw", buf, 4), 0xd4c3b2a1);

    /* sb/sh store only the low 8/16 bits and leave neighbours alone */
    memset(buf, 0xee, 12);
    STORE("sb", 0x123456abu, buf, 1);
    STORE("sh", 0xaaaa5555u, buf, 6);
    dump("sb 123456ab @1, sh aaaa5555 @6", buf, 12);
    show("lw +0", LOAD("lw", buf, 0), 0xeeeeabee);
    show("lw +4", LOAD("lw", buf, 4), 0x5555eeee);
    show("lw +8", LOAD("lw", buf, 8), 0xeeeeeeee);
}

static void test_offsets(void)
{
    printf("== immediate offsets\n");
    fill_pattern();
    uint8_t *mid = buf + 8;
    show("lw -4(buf+8)", LOAD("lw", mid, -4), 0x77665544);
    show("lbu -8(buf+8)", LOAD("lbu", mid, -8), 0x00);
    show("lh -6(buf+8)", LOAD("lh", mid, -6), 0x00003322);
    show("lb -1(buf+8)", LOAD("lb", mid, -1), 0x00000077);
    show("lb 0(buf+8)", LOAD("lb", mid, 0), 0xffffff88);

    for (unsigned i = 0; i < 4096; i++)
        page[i] = (uint8_t)(i ^ (i >> 8));
    uint8_t *p2k = page + 2048;
    /* page[2047] = 0xff ^ 0x07 = 0xf8; page[0] = 0; page[4095] = 0xff ^ 0x0f = 0xf0 */
    show("lbu 2047(page)", LOAD("lbu", page, 2047), 0xf8);
    show("lb -1(page+2048)", LOAD("lb", p2k, -1), 0xfffffff8);
    show("lb -2048(page+2048)", LOAD("lb", p2k, -2048), 0x00);
    show("lbu 2047(page+2048)", LOAD("lbu", p2k, 2047), 0xf0);
    STORE("sw", 0xcafef00du, p2k, -2048);
    STORE("sh", 0xbeefu, p2k, 2046);
    show("sw -2048 -> lw 0(page)", LOAD("lw", page, 0), 0xcafef00d);
    show("sh 2046 -> lhu 4094(page)", *(volatile uint16_t *)(page + 4094), 0xbeef);
}

static void test_misaligned(void)
{
    printf("== misaligned loads\n");
    fill_pattern();
    dump("buf", buf, 20);
    show("lh  +1", LOAD("lh", buf, 1), 0x00002211);
    show("lhu +1", LOAD("lhu", buf, 1), 0x00002211);
    show("lh  +7", LOAD("lh", buf, 7), 0xffff8877);
    show("lhu +7", LOAD("lhu", buf, 7), 0x00008877);
    show("lh  +9", LOAD("lh", buf, 9), 0xffffaa99);
    show("lhu +15", LOAD("lhu", buf, 15), 0x000010ff);
    show("lw  +1", LOAD("lw", buf, 1), 0x44332211);
    show("lw  +2", LOAD("lw", buf, 2), 0x55443322);
    show("lw  +3", LOAD("lw", buf, 3), 0x66554433);
    show("lw  +5", LOAD("lw", buf, 5), 0x88776655);
    show("lw  +7", LOAD("lw", buf, 7), 0xaa998877);
    show("lw  +13", LOAD("lw", buf, 13), 0x10ffeedd);

    printf("== misaligned stores\n");
    memset(buf, 0, sizeof buf);
    STORE("sh", 0xbeefu, buf, 3);
    STORE("sw", 0x01020304u, buf, 6);
    STORE("sw", 0xdeadbeefu, buf, 13);
    STORE("sh", 0x1234u, buf, 19);
    STORE("sw", 0x12345678u, buf, 22);
    dump("sh beef @3, sw 01020304 @6, sw deadbeef @13, sh 1234 @19, sw 12345678 @22", buf,
         28);
    show("lw +0", LOAD("lw", buf, 0), 0xef000000);
    show("lw +4", LOAD("lw", buf, 4), 0x030400be);
    show("lw +8", LOAD("lw", buf, 8), 0x00000102);
    show("lw +12", LOAD("lw", buf, 12), 0xadbeef00);
    show("lw +16", LOAD("lw", buf, 16), 0x340000de);
    show("lw +20", LOAD("lw", buf, 20), 0x56780012);
    show("lw +24", LOAD("lw", buf, 24), 0x00001234);
    show("lw +13 (back)", LOAD("lw", buf, 13), 0xdeadbeef);
    show("lh +19 (back)", LOAD("lh", buf, 19), 0x00001234);

    printf("== misaligned across a 4 KiB page boundary\n");
    uint8_t *edge = page + 4096;
    for (int i = -4; i < 4; i++)
        edge[i] = (uint8_t)(0xa0 + i); /* 9c 9d 9e 9f | a0 a1 a2 a3 */
    show("lw  -2(page+4096)", LOAD("lw", edge, -2), 0xa1a09f9e);
    show("lw  -1(page+4096)", LOAD("lw", edge, -1), 0xa2a1a09f);
    show("lh  -1(page+4096)", LOAD("lh", edge, -1), 0xffffa09f);
    STORE("sw", 0x11223344u, edge, -3);
    STORE("sh", 0x5566u, edge, 1);
    dump("sw 11223344 @-3, sh 5566 @+1", edge - 4, 8);
    show("lw -4(page+4096)", LOAD("lw", edge, -4), 0x2233449c);
    show("lw  0(page+4096)", LOAD("lw", edge, 0), 0xa3556611);
}

int main(void)
{
    test_extension();
    test_endian();
    test_offsets();
    test_misaligned();
    printf("loadstore: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

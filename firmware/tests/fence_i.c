/*
 * fence_i.c - self-modifying code. Instructions are written into a RAM
 * buffer with ordinary stores, made visible to instruction fetch with
 * fence.i, and called; then patched and called again (the old
 * instructions must not be executed again, e.g. from a decoded-instruction
 * cache). Includes code that patches its own next instructions
 * (sw + fence.i, then falls through into the new instruction) and a loop
 * that re-patches the same word 1000 times.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>

#define A0 10
#define A1 11
#define ZERO 0

static uint32_t insn_addi(unsigned rd, unsigned rs1, int32_t imm)
{
    return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | 0u << 12 | rd << 7 | 0x13;
}
static uint32_t insn_sw(unsigned rs2, unsigned rs1, int32_t imm)
{
    uint32_t i = (uint32_t)imm & 0xfff;
    return (i >> 5) << 25 | rs2 << 20 | rs1 << 15 | 2u << 12 | (i & 0x1f) << 7 | 0x23;
}
#define INSN_RET 0x00008067u     /* jalr x0, 0(ra) */
#define INSN_FENCE_I 0x0000100fu /* fence.i */

static uint32_t code[64] __attribute__((aligned(64)));

typedef int32_t (*fn0_t)(void);
typedef int32_t (*fn2_t)(uint32_t *self, uint32_t new_insn);

static void fence_i(void)
{
    __asm__ volatile(".option push\n.option arch, +zifencei\nfence.i\n.option pop" : : : "memory");
}

static int32_t call0(void)
{
    return ((fn0_t)(uintptr_t)code)();
}

static unsigned checks, failures;

static void show(const char *what, int32_t got, int32_t want)
{
    printf("%s -> %ld\n", what, (long)got);
    checks++;
    if (got != want) {
        failures++;
        printf("  MISMATCH: want %ld\n", (long)want);
    }
}

int main(void)
{
    /* sanity: the encoders agree with the assembler */
    printf("encodings: addi a0,zero,1=%08lx sw a1,12(a0)=%08lx\n",
           (unsigned long)insn_addi(A0, ZERO, 1), (unsigned long)insn_sw(A1, A0, 12));
    show("encoders match the assembler",
         insn_addi(A0, ZERO, 1) == 0x00100513u && insn_addi(A0, A0, -1) == 0xfff50513u &&
             insn_sw(A1, A0, 12) == 0x00b52623u,
         1);

    code[0] = insn_addi(A0, ZERO, 1);
    code[1] = INSN_RET;
    fence_i();
    show("addi a0, zero, 1; ret", call0(), 1);

    code[0] = insn_addi(A0, ZERO, 2);
    fence_i();
    show("patched: addi a0, zero, 2", call0(), 2);

    code[0] = insn_addi(A0, ZERO, -5);
    fence_i();
    show("patched: addi a0, zero, -5", call0(), -5);

    /* a0 = 0; a0 += 1; ... a0 += 10; ret */
    code[0] = insn_addi(A0, ZERO, 0);
    for (int k = 1; k <= 10; k++)
        code[k] = insn_addi(A0, A0, k);
    code[11] = INSN_RET;
    fence_i();
    show("0 + 1 + 2 + ... + 10", call0(), 55);

    code[5] = insn_addi(A0, A0, 100);
    fence_i();
    show("5th addend patched to 100", call0(), 150);

    code[11] = insn_addi(A0, A0, 1000);
    code[12] = INSN_RET;
    fence_i();
    show("ret replaced by another addi", call0(), 1150);

    /* Code that patches itself: code[3] is overwritten by code[0], and
     * the fence.i at code[1] makes the new instruction the one executed. */
    code[0] = insn_sw(A1, A0, 12); /* sw a1, 12(a0) */
    code[1] = INSN_FENCE_I;
    code[2] = insn_addi(ZERO, ZERO, 0); /* nop */
    code[3] = insn_addi(A0, ZERO, 111);
    code[4] = INSN_RET;
    fence_i();
    fn2_t self_patching = (fn2_t)(uintptr_t)code;
    show("self-patching: 111 replaced by 222", self_patching(code, insn_addi(A0, ZERO, 222)), 222);
    show("self-patching again: 222 replaced by 333", self_patching(code, insn_addi(A0, ZERO, 333)),
         333);

    /* Re-patch the same word many times. */
    code[0] = insn_addi(A0, ZERO, 0);
    code[1] = INSN_RET;
    int32_t sum = 0;
    for (int i = 0; i < 1000; i++) {
        code[0] = insn_addi(A0, ZERO, i);
        fence_i();
        sum += call0();
    }
    show("1000 re-patches, sum of 0..999", sum, 499500);

    printf("fence_i: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

/*
 * shifts.c - sll/srl/sra and slli/srli/srai, forced with inline asm.
 * Register shift amounts 0, 1, 4, 31 and >= 32 (only the low 5 bits of rs2
 * count: 32 -> 0, 33 -> 1, 63 -> 31, 100 -> 4, 0xffffffe0 -> 0,
 * 0xffffffff -> 31); immediate amounts 0, 1, 4, 31; positive and negative
 * values. Results are printed in hex and compared with a table computed from
 * the ISA definitions; returns 1 on any mismatch.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>

static unsigned checks, failures;

static void check(const char *what, uint32_t got, uint32_t want)
{
    checks++;
    if (got != want) {
        failures++;
        printf("  MISMATCH %s: got %08lx want %08lx\n", what, (unsigned long)got,
               (unsigned long)want);
    }
}

#define OP_RR(insn, a, b)                                                     \
    ({                                                                        \
        uint32_t r_;                                                          \
        __asm__ volatile(insn " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b));     \
        r_;                                                                   \
    })
#define OP_RI(insn, a, imm)                                                   \
    ({                                                                        \
        uint32_t r_;                                                          \
        __asm__ volatile(insn " %0, %1, " #imm : "=r"(r_) : "r"(a));          \
        r_;                                                                   \
    })

struct shift_vec {
    uint32_t a, n, sll, srl, sra;
};

/* sll: a << (n & 31); srl: logical a >> (n & 31); sra: arithmetic. */
static const struct shift_vec reg_vecs[] = {
    {0x12345678, 0x00000000, 0x12345678, 0x12345678, 0x12345678},
    {0x12345678, 0x00000001, 0x2468acf0, 0x091a2b3c, 0x091a2b3c},
    {0x12345678, 0x00000004, 0x23456780, 0x01234567, 0x01234567},
    {0x12345678, 0x0000001f, 0x00000000, 0x00000000, 0x00000000},
    {0x12345678, 0x00000020, 0x12345678, 0x12345678, 0x12345678},
    {0x12345678, 0x00000021, 0x2468acf0, 0x091a2b3c, 0x091a2b3c},
    {0x12345678, 0x0000003f, 0x00000000, 0x00000000, 0x00000000},
    {0x12345678, 0x00000064, 0x23456780, 0x01234567, 0x01234567},
    {0x12345678, 0xffffffe0, 0x12345678, 0x12345678, 0x12345678},
    {0x12345678, 0xffffffff, 0x00000000, 0x00000000, 0x00000000},
    {0x87654321, 0x00000000, 0x87654321, 0x87654321, 0x87654321},
    {0x87654321, 0x00000001, 0x0eca8642, 0x43b2a190, 0xc3b2a190},
    {0x87654321, 0x00000004, 0x76543210, 0x08765432, 0xf8765432},
    {0x87654321, 0x0000001f, 0x80000000, 0x00000001, 0xffffffff},
    {0x87654321, 0x00000020, 0x87654321, 0x87654321, 0x87654321},
    {0x87654321, 0x00000021, 0x0eca8642, 0x43b2a190, 0xc3b2a190},
    {0x87654321, 0x0000003f, 0x80000000, 0x00000001, 0xffffffff},
    {0x87654321, 0x00000064, 0x76543210, 0x08765432, 0xf8765432},
    {0x87654321, 0xffffffe0, 0x87654321, 0x87654321, 0x87654321},
    {0x87654321, 0xffffffff, 0x80000000, 0x00000001, 0xffffffff},
    {0x80000000, 0x00000000, 0x80000000, 0x80000000, 0x80000000},
    {0x80000000, 0x00000001, 0x00000000, 0x40000000, 0xc0000000},
    {0x80000000, 0x00000004, 0x00000000, 0x08000000, 0xf8000000},
    {0x80000000, 0x0000001f, 0x00000000, 0x00000001, 0xffffffff},
    {0x80000000, 0x00000020, 0x80000000, 0x80000000, 0x80000000},
    {0x80000000, 0x00000021, 0x00000000, 0x40000000, 0xc0000000},
    {0x80000000, 0x0000003f, 0x00000000, 0x00000001, 0xffffffff},
    {0x80000000, 0x00000064, 0x00000000, 0x08000000, 0xf8000000},
    {0x80000000, 0xffffffe0, 0x80000000, 0x80000000, 0x80000000},
    {0x80000000, 0xffffffff, 0x00000000, 0x00000001, 0xffffffff},
    {0xffffffff, 0x00000000, 0xffffffff, 0xffffffff, 0xffffffff},
    {0xffffffff, 0x00000001, 0xfffffffe, 0x7fffffff, 0xffffffff},
    {0xffffffff, 0x00000004, 0xfffffff0, 0x0fffffff, 0xffffffff},
    {0xffffffff, 0x0000001f, 0x80000000, 0x00000001, 0xffffffff},
    {0xffffffff, 0x00000020, 0xffffffff, 0xffffffff, 0xffffffff},
    {0xffffffff, 0x00000021, 0xfffffffe, 0x7fffffff, 0xffffffff},
    {0xffffffff, 0x0000003f, 0x80000000, 0x00000001, 0xffffffff},
    {0xffffffff, 0x00000064, 0xfffffff0, 0x0fffffff, 0xffffffff},
    {0xffffffff, 0xffffffe0, 0xffffffff, 0xffffffff, 0xffffffff},
    {0xffffffff, 0xffffffff, 0x80000000, 0x00000001, 0xffffffff},
    {0x00000001, 0x00000000, 0x00000001, 0x00000001, 0x00000001},
    {0x00000001, 0x00000001, 0x00000002, 0x00000000, 0x00000000},
    {0x00000001, 0x00000004, 0x00000010, 0x00000000, 0x00000000},
    {0x00000001, 0x0000001f, 0x80000000, 0x00000000, 0x00000000},
    {0x00000001, 0x00000020, 0x00000001, 0x00000001, 0x00000001},
    {0x00000001, 0x00000021, 0x00000002, 0x00000000, 0x00000000},
    {0x00000001, 0x0000003f, 0x80000000, 0x00000000, 0x00000000},
    {0x00000001, 0x00000064, 0x00000010, 0x00000000, 0x00000000},
    {0x00000001, 0xffffffe0, 0x00000001, 0x00000001, 0x00000001},
    {0x00000001, 0xffffffff, 0x80000000, 0x00000000, 0x00000000},
};

static const uint32_t values[] = {0x12345678, 0x87654321, 0x80000000, 0xffffffff, 0x00000001};
#define NVALUES (sizeof values / sizeof values[0])

static void show_imm(uint32_t a, unsigned n, uint32_t sll, uint32_t srl, uint32_t sra)
{
    printf("%08lx by %u: slli=%08lx srli=%08lx srai=%08lx\n", (unsigned long)a, n,
           (unsigned long)sll, (unsigned long)srl, (unsigned long)sra);
    /* The register forms were checked against the table above; the
     * immediate forms must agree with them. */
    check("slli", sll, OP_RR("sll", a, n));
    check("srli", srl, OP_RR("srl", a, n));
    check("srai", sra, OP_RR("sra", a, n));
}

#define IMM_SHIFTS(a, n)                                                      \
    show_imm(a, n, OP_RI("slli", a, n), OP_RI("srli", a, n), OP_RI("srai", a, n))

int main(void)
{
    printf("== sll srl sra\n");
    for (unsigned i = 0; i < sizeof reg_vecs / sizeof reg_vecs[0]; i++) {
        const struct shift_vec *v = &reg_vecs[i];
        uint32_t sll = OP_RR("sll", v->a, v->n);
        uint32_t srl = OP_RR("srl", v->a, v->n);
        uint32_t sra = OP_RR("sra", v->a, v->n);
        printf("%08lx by %08lx: sll=%08lx srl=%08lx sra=%08lx\n", (unsigned long)v->a,
               (unsigned long)v->n, (unsigned long)sll, (unsigned long)srl,
               (unsigned long)sra);
        check("sll", sll, v->sll);
        check("srl", srl, v->srl);
        check("sra", sra, v->sra);
    }

    printf("== slli srli srai\n");
    for (unsigned i = 0; i < NVALUES; i++) {
        uint32_t a = values[i];
        IMM_SHIFTS(a, 0);
        IMM_SHIFTS(a, 1);
        IMM_SHIFTS(a, 4);
        IMM_SHIFTS(a, 31);
    }

    /* A shift by x0 (amount 0) and into x0 (discarded). */
    uint32_t r, z;
    __asm__ volatile("li t0, 0x80000000\n"
                     "sra %0, t0, x0\n"
                     "slli x0, t0, 1\n"
                     "mv %1, x0"
                     : "=&r"(r), "=&r"(z)
                     :
                     : "t0");
    printf("sra by x0: %08lx, x0 after slli into it: %08lx\n", (unsigned long)r,
           (unsigned long)z);
    check("sra by x0", r, 0x80000000u);
    check("x0", z, 0);

    printf("shifts: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

/*
 * int_ops.c - RV32I/M integer corner cases, each forced with inline asm so
 * the compiler cannot constant-fold: mul/mulh/mulhsu/mulhu for all sign
 * combinations, div/divu/rem/remu incl. division by zero and INT_MIN / -1,
 * slt/sltu/slti/sltiu edge cases, add/sub wrap-around, x0, lui/auipc.
 *
 * Every result is printed in hex and compared against a table computed
 * from the ISA spec's definitions; the program returns 1 if any differs.
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

/* R-type instruction on two registers. */
#define OP_RR(insn, a, b)                                                     \
    ({                                                                        \
        uint32_t r_;                                                          \
        __asm__ volatile(insn " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b));     \
        r_;                                                                   \
    })
/* I-type instruction: register and a literal immediate. */
#define OP_RI(insn, a, imm)                                                   \
    ({                                                                        \
        uint32_t r_;                                                          \
        __asm__ volatile(insn " %0, %1, " #imm : "=r"(r_) : "r"(a));          \
        r_;                                                                   \
    })

struct mul_vec {
    uint32_t a, b, mul, mulh, mulhsu, mulhu;
};
struct div_vec {
    uint32_t a, b, div, divu, rem, remu;
};

/* Expected values: x*y as full 64-bit products of the signed/unsigned
 * interpretations (mulhsu: rs1 signed, rs2 unsigned); division truncates
 * toward zero, x/0 = all ones, x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0. */
static const struct mul_vec mul_vecs[] = {
    {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x00000001, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0xffffffff, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x80000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x7fffffff, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x12345678, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0xfedcba98, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000001, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000001, 0x00000001, 0x00000001, 0x00000000, 0x00000000, 0x00000000},
    {0x00000001, 0xffffffff, 0xffffffff, 0xffffffff, 0x00000000, 0x00000000},
    {0x00000001, 0x80000000, 0x80000000, 0xffffffff, 0x00000000, 0x00000000},
    {0x00000001, 0x7fffffff, 0x7fffffff, 0x00000000, 0x00000000, 0x00000000},
    {0x00000001, 0x12345678, 0x12345678, 0x00000000, 0x00000000, 0x00000000},
    {0x00000001, 0xfedcba98, 0xfedcba98, 0xffffffff, 0x00000000, 0x00000000},
    {0xffffffff, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xffffffff, 0x00000001, 0xffffffff, 0xffffffff, 0xffffffff, 0x00000000},
    {0xffffffff, 0xffffffff, 0x00000001, 0x00000000, 0xffffffff, 0xfffffffe},
    {0xffffffff, 0x80000000, 0x80000000, 0x00000000, 0xffffffff, 0x7fffffff},
    {0xffffffff, 0x7fffffff, 0x80000001, 0xffffffff, 0xffffffff, 0x7ffffffe},
    {0xffffffff, 0x12345678, 0xedcba988, 0xffffffff, 0xffffffff, 0x12345677},
    {0xffffffff, 0xfedcba98, 0x01234568, 0x00000000, 0xffffffff, 0xfedcba97},
    {0x80000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x80000000, 0x00000001, 0x80000000, 0xffffffff, 0xffffffff, 0x00000000},
    {0x80000000, 0xffffffff, 0x80000000, 0x00000000, 0x80000000, 0x7fffffff},
    {0x80000000, 0x80000000, 0x00000000, 0x40000000, 0xc0000000, 0x40000000},
    {0x80000000, 0x7fffffff, 0x80000000, 0xc0000000, 0xc0000000, 0x3fffffff},
    {0x80000000, 0x12345678, 0x00000000, 0xf6e5d4c4, 0xf6e5d4c4, 0x091a2b3c},
    {0x80000000, 0xfedcba98, 0x00000000, 0x0091a2b4, 0x8091a2b4, 0x7f6e5d4c},
    {0x7fffffff, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x7fffffff, 0x00000001, 0x7fffffff, 0x00000000, 0x00000000, 0x00000000},
    {0x7fffffff, 0xffffffff, 0x80000001, 0xffffffff, 0x7ffffffe, 0x7ffffffe},
    {0x7fffffff, 0x80000000, 0x80000000, 0xc0000000, 0x3fffffff, 0x3fffffff},
    {0x7fffffff, 0x7fffffff, 0x00000001, 0x3fffffff, 0x3fffffff, 0x3fffffff},
    {0x7fffffff, 0x12345678, 0xedcba988, 0x091a2b3b, 0x091a2b3b, 0x091a2b3b},
    {0x7fffffff, 0xfedcba98, 0x01234568, 0xff6e5d4c, 0x7f6e5d4b, 0x7f6e5d4b},
    {0x12345678, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x12345678, 0x00000001, 0x12345678, 0x00000000, 0x00000000, 0x00000000},
    {0x12345678, 0xffffffff, 0xedcba988, 0xffffffff, 0x12345677, 0x12345677},
    {0x12345678, 0x80000000, 0x00000000, 0xf6e5d4c4, 0x091a2b3c, 0x091a2b3c},
    {0x12345678, 0x7fffffff, 0xedcba988, 0x091a2b3b, 0x091a2b3b, 0x091a2b3b},
    {0x12345678, 0x12345678, 0x1df4d840, 0x014b66dc, 0x014b66dc, 0x014b66dc},
    {0x12345678, 0xfedcba98, 0x35068740, 0xffeb4992, 0x121fa00a, 0x121fa00a},
    {0xfedcba98, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xfedcba98, 0x00000001, 0xfedcba98, 0xffffffff, 0xffffffff, 0x00000000},
    {0xfedcba98, 0xffffffff, 0x01234568, 0x00000000, 0xfedcba98, 0xfedcba97},
    {0xfedcba98, 0x80000000, 0x00000000, 0x0091a2b4, 0xff6e5d4c, 0x7f6e5d4c},
    {0xfedcba98, 0x7fffffff, 0x01234568, 0xff6e5d4c, 0xff6e5d4c, 0x7f6e5d4b},
    {0xfedcba98, 0x12345678, 0x35068740, 0xffeb4992, 0xffeb4992, 0x121fa00a},
    {0xfedcba98, 0xfedcba98, 0xdd413a40, 0x00014b66, 0xfede05fe, 0xfdbac096},
};

static const struct div_vec div_vecs[] = {
    {0x00000000, 0x00000000, 0xffffffff, 0xffffffff, 0x00000000, 0x00000000},
    {0x00000000, 0x00000001, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0xffffffff, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x00000002, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0xfffffffd, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x80000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000000, 0x7fffffff, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x00000007, 0x00000000, 0xffffffff, 0xffffffff, 0x00000007, 0x00000007},
    {0x00000007, 0x00000001, 0x00000007, 0x00000007, 0x00000000, 0x00000000},
    {0x00000007, 0xffffffff, 0xfffffff9, 0x00000000, 0x00000000, 0x00000007},
    {0x00000007, 0x00000002, 0x00000003, 0x00000003, 0x00000001, 0x00000001},
    {0x00000007, 0xfffffffd, 0xfffffffe, 0x00000000, 0x00000001, 0x00000007},
    {0x00000007, 0x80000000, 0x00000000, 0x00000000, 0x00000007, 0x00000007},
    {0x00000007, 0x7fffffff, 0x00000000, 0x00000000, 0x00000007, 0x00000007},
    {0xfffffff9, 0x00000000, 0xffffffff, 0xffffffff, 0xfffffff9, 0xfffffff9},
    {0xfffffff9, 0x00000001, 0xfffffff9, 0xfffffff9, 0x00000000, 0x00000000},
    {0xfffffff9, 0xffffffff, 0x00000007, 0x00000000, 0x00000000, 0xfffffff9},
    {0xfffffff9, 0x00000002, 0xfffffffd, 0x7ffffffc, 0xffffffff, 0x00000001},
    {0xfffffff9, 0xfffffffd, 0x00000002, 0x00000000, 0xffffffff, 0xfffffff9},
    {0xfffffff9, 0x80000000, 0x00000000, 0x00000001, 0xfffffff9, 0x7ffffff9},
    {0xfffffff9, 0x7fffffff, 0x00000000, 0x00000001, 0xfffffff9, 0x7ffffffa},
    {0x80000000, 0x00000000, 0xffffffff, 0xffffffff, 0x80000000, 0x80000000},
    {0x80000000, 0x00000001, 0x80000000, 0x80000000, 0x00000000, 0x00000000},
    {0x80000000, 0xffffffff, 0x80000000, 0x00000000, 0x00000000, 0x80000000},
    {0x80000000, 0x00000002, 0xc0000000, 0x40000000, 0x00000000, 0x00000000},
    {0x80000000, 0xfffffffd, 0x2aaaaaaa, 0x00000000, 0xfffffffe, 0x80000000},
    {0x80000000, 0x80000000, 0x00000001, 0x00000001, 0x00000000, 0x00000000},
    {0x80000000, 0x7fffffff, 0xffffffff, 0x00000001, 0xffffffff, 0x00000001},
    {0x7fffffff, 0x00000000, 0xffffffff, 0xffffffff, 0x7fffffff, 0x7fffffff},
    {0x7fffffff, 0x00000001, 0x7fffffff, 0x7fffffff, 0x00000000, 0x00000000},
    {0x7fffffff, 0xffffffff, 0x80000001, 0x00000000, 0x00000000, 0x7fffffff},
    {0x7fffffff, 0x00000002, 0x3fffffff, 0x3fffffff, 0x00000001, 0x00000001},
    {0x7fffffff, 0xfffffffd, 0xd5555556, 0x00000000, 0x00000001, 0x7fffffff},
    {0x7fffffff, 0x80000000, 0x00000000, 0x00000000, 0x7fffffff, 0x7fffffff},
    {0x7fffffff, 0x7fffffff, 0x00000001, 0x00000001, 0x00000000, 0x00000000},
    {0xffffffff, 0x00000000, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0xffffffff, 0x00000001, 0xffffffff, 0xffffffff, 0x00000000, 0x00000000},
    {0xffffffff, 0xffffffff, 0x00000001, 0x00000001, 0x00000000, 0x00000000},
    {0xffffffff, 0x00000002, 0x00000000, 0x7fffffff, 0xffffffff, 0x00000001},
    {0xffffffff, 0xfffffffd, 0x00000000, 0x00000001, 0xffffffff, 0x00000002},
    {0xffffffff, 0x80000000, 0x00000000, 0x00000001, 0xffffffff, 0x7fffffff},
    {0xffffffff, 0x7fffffff, 0x00000000, 0x00000002, 0xffffffff, 0x00000001},
    {0x12345678, 0x00000000, 0xffffffff, 0xffffffff, 0x12345678, 0x12345678},
    {0x12345678, 0x00000001, 0x12345678, 0x12345678, 0x00000000, 0x00000000},
    {0x12345678, 0xffffffff, 0xedcba988, 0x00000000, 0x00000000, 0x12345678},
    {0x12345678, 0x00000002, 0x091a2b3c, 0x091a2b3c, 0x00000000, 0x00000000},
    {0x12345678, 0xfffffffd, 0xf9ee8dd8, 0x00000000, 0x00000000, 0x12345678},
    {0x12345678, 0x80000000, 0x00000000, 0x00000000, 0x12345678, 0x12345678},
    {0x12345678, 0x7fffffff, 0x00000000, 0x00000000, 0x12345678, 0x12345678},
};

static void test_mul(void)
{
    printf("== mul mulh mulhsu mulhu\n");
    for (unsigned i = 0; i < sizeof mul_vecs / sizeof mul_vecs[0]; i++) {
        const struct mul_vec *v = &mul_vecs[i];
        uint32_t mul = OP_RR("mul", v->a, v->b);
        uint32_t mulh = OP_RR("mulh", v->a, v->b);
        uint32_t mulhsu = OP_RR("mulhsu", v->a, v->b);
        uint32_t mulhu = OP_RR("mulhu", v->a, v->b);
        printf("%08lx * %08lx: mul=%08lx mulh=%08lx mulhsu=%08lx mulhu=%08lx\n",
               (unsigned long)v->a, (unsigned long)v->b, (unsigned long)mul,
               (unsigned long)mulh, (unsigned long)mulhsu, (unsigned long)mulhu);
        check("mul", mul, v->mul);
        check("mulh", mulh, v->mulh);
        check("mulhsu", mulhsu, v->mulhsu);
        check("mulhu", mulhu, v->mulhu);
    }
}

static void test_div(void)
{
    printf("== div divu rem remu\n");
    for (unsigned i = 0; i < sizeof div_vecs / sizeof div_vecs[0]; i++) {
        const struct div_vec *v = &div_vecs[i];
        uint32_t div = OP_RR("div", v->a, v->b);
        uint32_t divu = OP_RR("divu", v->a, v->b);
        uint32_t rem = OP_RR("rem", v->a, v->b);
        uint32_t remu = OP_RR("remu", v->a, v->b);
        printf("%08lx / %08lx: div=%08lx divu=%08lx rem=%08lx remu=%08lx\n",
               (unsigned long)v->a, (unsigned long)v->b, (unsigned long)div,
               (unsigned long)divu, (unsigned long)rem, (unsigned long)remu);
        check("div", div, v->div);
        check("divu", divu, v->divu);
        check("rem", rem, v->rem);
        check("remu", remu, v->remu);
    }
}

static void show(const char *what, uint32_t got, uint32_t want)
{
    printf("%s = %08lx\n", what, (unsigned long)got);
    check(what, got, want);
}

/* Values the compiler cannot see through. */
static volatile uint32_t v_int_min = 0x80000000u, v_int_max = 0x7fffffffu;
static volatile uint32_t v_m1 = 0xffffffffu, v_m2 = 0xfffffffeu, v_zero = 0, v_one = 1;
static volatile uint32_t v_five = 5, v_2046 = 2046, v_2047 = 2047;
static volatile uint32_t v_m2048 = 0xfffff800u, v_m2049 = 0xfffff7ffu;
static volatile uint32_t v_pattern = 0x12345678u;

static void test_compare(void)
{
    printf("== slt sltu slti sltiu\n");
    show("slt(80000000, 7fffffff)", OP_RR("slt", v_int_min, v_int_max), 1);
    show("sltu(80000000, 7fffffff)", OP_RR("sltu", v_int_min, v_int_max), 0);
    show("slt(7fffffff, 80000000)", OP_RR("slt", v_int_max, v_int_min), 0);
    show("sltu(7fffffff, 80000000)", OP_RR("sltu", v_int_max, v_int_min), 1);
    show("slt(ffffffff, 00000000)", OP_RR("slt", v_m1, v_zero), 1);
    show("sltu(ffffffff, 00000000)", OP_RR("sltu", v_m1, v_zero), 0);
    show("slt(00000000, ffffffff)", OP_RR("slt", v_zero, v_m1), 0);
    show("sltu(00000000, ffffffff)", OP_RR("sltu", v_zero, v_m1), 1);
    show("slt(00000005, 00000005)", OP_RR("slt", v_five, v_five), 0);
    show("sltu(00000005, 00000005)", OP_RR("sltu", v_five, v_five), 0);
    show("slti(fffff800, -2048)", OP_RI("slti", v_m2048, -2048), 0);
    show("slti(fffff7ff, -2048)", OP_RI("slti", v_m2049, -2048), 1);
    show("slti(000007fe, 2047)", OP_RI("slti", v_2046, 2047), 1);
    show("slti(000007ff, 2047)", OP_RI("slti", v_2047, 2047), 0);
    show("slti(80000000, 0)", OP_RI("slti", v_int_min, 0), 1);
    /* sltiu sign-extends its immediate, then compares unsigned */
    show("sltiu(fffffffe, -1)", OP_RI("sltiu", v_m2, -1), 1);
    show("sltiu(ffffffff, -1)", OP_RI("sltiu", v_m1, -1), 0);
    show("sltiu(80000000, -2048)", OP_RI("sltiu", v_int_min, -2048), 1);
    show("sltiu(00000000, 1) [seqz]", OP_RI("sltiu", v_zero, 1), 1);
    show("sltiu(00000001, 1) [seqz]", OP_RI("sltiu", v_one, 1), 0);
    show("sltiu(7fffffff, 2047)", OP_RI("sltiu", v_int_max, 2047), 0);
    show("sltiu(00000005, 2047)", OP_RI("sltiu", v_five, 2047), 1);
}

static void test_arith(void)
{
    printf("== add sub logic x0\n");
    show("add(7fffffff, 00000001)", OP_RR("add", v_int_max, v_one), 0x80000000u);
    show("sub(80000000, 00000001)", OP_RR("sub", v_int_min, v_one), 0x7fffffffu);
    show("sub(00000000, 80000000)", OP_RR("sub", v_zero, v_int_min), 0x80000000u);
    show("add(ffffffff, ffffffff)", OP_RR("add", v_m1, v_m1), 0xfffffffeu);
    show("addi(00000000, -1)", OP_RI("addi", v_zero, -1), 0xffffffffu);
    show("addi(7fffffff, 1)", OP_RI("addi", v_int_max, 1), 0x80000000u);
    show("xori(12345678, -1) [not]", OP_RI("xori", v_pattern, -1), 0xedcba987u);
    show("andi(12345678, -2048)", OP_RI("andi", v_pattern, -2048), 0x12345000u);
    show("ori(12345678, 2047)", OP_RI("ori", v_pattern, 2047), 0x123457ffu);
    show("and(12345678, ffffffff)", OP_RR("and", v_pattern, v_m1), 0x12345678u);
    show("or(12345678, 80000000)", OP_RR("or", v_pattern, v_int_min), 0x92345678u);
    show("xor(12345678, 12345678)", OP_RR("xor", v_pattern, v_pattern), 0);

    uint32_t x0;
    __asm__ volatile("li t0, 5\n"
                     "addi x0, t0, 1\n"
                     "add x0, t0, t0\n"
                     "lui x0, 0x12345\n"
                     "mv %0, x0"
                     : "=r"(x0)
                     :
                     : "t0");
    show("x0 after writes", x0, 0);
}

static void test_upper(void)
{
    printf("== lui auipc\n");
    uint32_t r;
    __asm__ volatile("lui %0, 0xfffff" : "=r"(r));
    show("lui 0xfffff", r, 0xfffff000u);
    __asm__ volatile("lui %0, 0x80000" : "=r"(r));
    show("lui 0x80000", r, 0x80000000u);
    __asm__ volatile("lui %0, 0x1" : "=r"(r));
    show("lui 0x1", r, 0x00001000u);
    __asm__ volatile("lui %0, 0x12346\n addi %0, %0, -1" : "=r"(r));
    show("lui 0x12346 + addi -1", r, 0x12345fffu);

    /* auipc adds (imm << 12) to the address of the auipc itself. */
    uint32_t pc0, pc1, pcm, here;
    __asm__ volatile("1: auipc %0, 0\n"
                     "auipc %1, 1\n"
                     "auipc %2, 0xfffff\n"
                     "la %3, 1b"
                     : "=&r"(pc0), "=&r"(pc1), "=&r"(pcm), "=&r"(here));
    printf("auipc 0 == own address: %s\n", pc0 == here ? "yes" : "no");
    check("auipc 0", pc0, here);
    show("auipc 1 - own address", pc1 - (here + 4), 0x1000);
    show("auipc 0xfffff - own address", pcm - (here + 8), 0xfffff000u);
}

int main(void)
{
    test_mul();
    test_div();
    test_compare();
    test_arith();
    test_upper();
    printf("int_ops: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

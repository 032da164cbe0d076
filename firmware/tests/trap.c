/*
 * trap.c - M-mode traps and CSRs. Installs its own trap handler (mtvec,
 * direct mode; handler in asm below) around each check, restoring
 * picolibc's handler in between (so printf never runs with ours) and at the
 * end. Checks:
 *   - illegal instructions (.word 0, a reserved OP encoding, a write to the
 *     read-only mhartid): mcause 2, mtval = the instruction word, mepc = its
 *     address; the handler resumes at mepc + 4;
 *   - ecall from M-mode (mcause 11, mtval 0), plain ebreak (mcause 3);
 *   - load / store / instruction fetch at 0x90000000, which is unmapped both
 *     in QEMU virt (128 MiB RAM) and in mxpsim's default map: mcause 5 / 7 /
 *     1 with mtval = the address;
 *   - mstatus.MIE/MPIE/MPP across trap entry and mret;
 *   - U-mode: mret with MPP=0, a CSR access from U (mcause 2, MPP=0), an
 *     ecall from U (mcause 8), after which the handler returns to M-mode;
 *     PMP entry 0 is first set to allow everything (QEMU needs that for U
 *     to fetch anything; a trap from the write is tolerated);
 *   - mscratch via all six CSR instructions; misa (MXL=1, I, M); mhartid;
 *   - mcycle/minstret/cycle/instret/time (+ the ...h halves) increasing.
 * Only values that are the same on every correct implementation are
 * printed. Returns 1 if any check fails.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>

#include "csr.h"
#define MSTATUS_MPP (3u << 11)

#define UNMAPPED 0x90000000u

struct trap_rec {
    uint32_t mcause, mepc, mtval, mstatus;
};
#define MAX_TRAPS 8
volatile uint32_t trap_count;
volatile struct trap_rec traps[MAX_TRAPS];

void test_trap_handler(void);

/*
 * Records mcause/mepc/mtval/mstatus in traps[trap_count++], then resumes:
 *   - instruction access fault (1): at ra (the test jumped with jalr ra);
 *   - anything else: at mepc + 4 (no compressed instructions in rv32im);
 *   - ecall from U-mode (8): additionally MPP := M, so mret returns to M-mode.
 * Uses the interrupted code's stack; preserves every register.
 */
__asm__(".section .text.test_trap_handler, \"ax\", @progbits\n"
        ".option push\n"
        ".option arch, +zicsr\n"
        ".balign 4\n"
        ".globl test_trap_handler\n"
        "test_trap_handler:\n"
        "    addi sp, sp, -16\n"
        "    sw t0, 0(sp)\n"
        "    sw t1, 4(sp)\n"
        "    sw t2, 8(sp)\n"
        "    la t0, trap_count\n"
        "    lw t1, 0(t0)\n"
        "    addi t2, t1, 1\n"
        "    sw t2, 0(t0)\n"
        "    li t2, " "8" "\n" /* MAX_TRAPS */
        "    bgeu t1, t2, 1f\n"
        "    slli t1, t1, 4\n"
        "    la t0, traps\n"
        "    add t0, t0, t1\n"
        "    csrr t1, mcause\n"
        "    sw t1, 0(t0)\n"
        "    csrr t1, mepc\n"
        "    sw t1, 4(t0)\n"
        "    csrr t1, mtval\n"
        "    sw t1, 8(t0)\n"
        "    csrr t1, mstatus\n"
        "    sw t1, 12(t0)\n"
        "1:  csrr t0, mcause\n"
        "    li t1, 1\n"
        "    beq t0, t1, 3f\n"
        "    csrr t1, mepc\n"
        "    addi t1, t1, 4\n"
        "    csrw mepc, t1\n"
        "    li t1, 8\n"
        "    bne t0, t1, 4f\n"
        "    li t1, 0x1800\n"
        "    csrs mstatus, t1\n"
        "    j 4f\n"
        "3:  csrw mepc, ra\n"
        "4:  lw t0, 0(sp)\n"
        "    lw t1, 4(sp)\n"
        "    lw t2, 8(sp)\n"
        "    addi sp, sp, 16\n"
        "    mret\n"
        ".option pop\n"
        ".text\n");

static unsigned checks, failures;
static uint32_t picolibc_mtvec;

static int check(int ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        printf("  FAIL: %s\n", what);
    }
    return ok;
}

static void install(void)
{
    trap_count = 0;
    for (unsigned i = 0; i < MAX_TRAPS; i++)
        traps[i].mcause = traps[i].mepc = traps[i].mtval = traps[i].mstatus = 0xdeadbeef;
    CSRW(mtvec, (uint32_t)test_trap_handler);
}

static void uninstall(void)
{
    CSRW(mtvec, picolibc_mtvec);
}

static const char *yesno(int b)
{
    return b ? "yes" : "no";
}

static unsigned mpp(uint32_t ms) { return (ms & MSTATUS_MPP) >> 11; }
static unsigned mpie(uint32_t ms) { return (ms & MSTATUS_MPIE) ? 1 : 0; }
static unsigned mie(uint32_t ms) { return (ms & MSTATUS_MIE) ? 1 : 0; }

/* One trap expected; print cause, optionally mtval, and whether mepc is right. */
static void report(const char *what, uint32_t at, uint32_t want_cause, int show_mtval,
                   uint32_t want_mtval)
{
    unsigned n = trap_count;
    const volatile struct trap_rec *t = &traps[0];
    printf("%s: traps=%u mcause=%lu", what, n, (unsigned long)t->mcause);
    if (show_mtval)
        printf(" mtval=%08lx", (unsigned long)t->mtval);
    printf(" mepc=%s\n", t->mepc == at ? "ok" : "WRONG");
    check(n == 1, "exactly one trap");
    check(t->mcause == want_cause, "mcause");
    check(t->mepc == at, "mepc");
    if (show_mtval)
        check(t->mtval == want_mtval, "mtval");
}

static void test_illegal(void)
{
    uint32_t at;

    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: .word 0x00000000\n"
                     : "=&r"(at)
                     :
                     : "memory");
    uninstall();
    report("illegal .word 0x00000000", at, 2, 1, 0x00000000);

    /* OP major opcode with funct7 = 0x7f: reserved */
    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: .word 0xfe000033\n"
                     : "=&r"(at)
                     :
                     : "memory");
    uninstall();
    report("illegal .word 0xfe000033", at, 2, 1, 0xfe000033);

    /* csrw mhartid, zero = csrrw x0, mhartid, x0: write to a read-only CSR */
    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: .word 0xf1401073\n"
                     : "=&r"(at)
                     :
                     : "memory");
    uninstall();
    report("csrw mhartid, zero (read-only CSR)", at, 2, 1, 0xf1401073);
}

static void test_ecall_ebreak(void)
{
    uint32_t at;

    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: ecall\n"
                     : "=&r"(at)
                     :
                     : "memory");
    uninstall();
    report("ecall from M-mode", at, 11, 1, 0);

    /* A plain ebreak: not the semihosting sequence (slli/ebreak/srai). */
    install();
    __asm__ volatile("la %0, 1f\n"
                     "nop\n"
                     "1: ebreak\n"
                     "nop\n"
                     : "=&r"(at)
                     :
                     : "memory");
    uninstall();
    report("ebreak", at, 3, 0, 0);
    /* mtval for a breakpoint is either 0 or the ebreak's address */
    printf("ebreak: mtval is 0 or the pc: %s\n", yesno(traps[0].mtval == 0 || traps[0].mtval == at));
    check(traps[0].mtval == 0 || traps[0].mtval == at, "ebreak mtval");
}

static void test_access_faults(void)
{
    uint32_t at, val = 0x1234;
    uint32_t base = UNMAPPED - 16;

    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: lw %1, 16(%2)\n"
                     : "=&r"(at), "+r"(val)
                     : "r"(base)
                     : "memory");
    uninstall();
    report("lw 16(0x8ffffff0)", at, 5, 1, UNMAPPED);
    printf("lw destination register unchanged: %s\n", yesno(val == 0x1234));
    check(val == 0x1234, "load destination unchanged");

    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: lbu %1, 16(%2)\n"
                     : "=&r"(at), "+r"(val)
                     : "r"(base)
                     : "memory");
    uninstall();
    report("lbu 16(0x8ffffff0)", at, 5, 1, UNMAPPED);

    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: sw %1, 16(%2)\n"
                     : "=&r"(at)
                     : "r"(val), "r"(base)
                     : "memory");
    uninstall();
    report("sw 16(0x8ffffff0)", at, 7, 1, UNMAPPED);

    install();
    __asm__ volatile("la %0, 1f\n"
                     "1: sb %1, 16(%2)\n"
                     : "=&r"(at)
                     : "r"(val), "r"(base)
                     : "memory");
    uninstall();
    report("sb 16(0x8ffffff0)", at, 7, 1, UNMAPPED);

    /* Jump to the unmapped address; the handler resumes at ra. */
    install();
    __asm__ volatile("li t0, %0\n"
                     "jalr ra, 0(t0)\n"
                     :
                     : "i"(UNMAPPED)
                     : "t0", "ra", "memory");
    uninstall();
    report("jalr to 0x90000000", UNMAPPED, 1, 1, UNMAPPED);
}

static void test_mstatus(void)
{
    uint32_t after;
    uint32_t zero = 0;

    CSRW(mie, zero); /* no interrupt sources enabled, so MIE=1 is harmless */

    install();
    CSRC(mstatus, MSTATUS_MPIE);
    CSRS(mstatus, MSTATUS_MIE);
    __asm__ volatile("ecall" : : : "memory");
    after = CSRR(mstatus);
    CSRC(mstatus, MSTATUS_MIE);
    uninstall();
    uint32_t at = traps[0].mstatus;
    printf("MIE=1 MPIE=0, ecall: at trap MPP=%u MPIE=%u MIE=%u; after mret MPP=%u MPIE=%u "
           "MIE=%u\n",
           mpp(at), mpie(at), mie(at), mpp(after), mpie(after), mie(after));
    check(mpp(at) == 3 && mpie(at) == 1 && mie(at) == 0, "mstatus at trap (MIE=1)");
    check(mpp(after) == 0 && mpie(after) == 1 && mie(after) == 1, "mstatus after mret (MIE=1)");

    install();
    CSRS(mstatus, MSTATUS_MPIE);
    CSRC(mstatus, MSTATUS_MIE);
    __asm__ volatile("ecall" : : : "memory");
    after = CSRR(mstatus);
    uninstall();
    at = traps[0].mstatus;
    printf("MIE=0 MPIE=1, ecall: at trap MPP=%u MPIE=%u MIE=%u; after mret MPP=%u MPIE=%u "
           "MIE=%u\n",
           mpp(at), mpie(at), mie(at), mpp(after), mpie(after), mie(after));
    check(mpp(at) == 3 && mpie(at) == 0 && mie(at) == 0, "mstatus at trap (MIE=0)");
    check(mpp(after) == 0 && mpie(after) == 1 && mie(after) == 0, "mstatus after mret (MIE=0)");
}

static void test_user_mode(void)
{
    /* PMP entry 0: NAPOT over the whole address space, RWX (as riscv-tests
     * do). Without a matching entry QEMU denies every U-mode access. */
    install();
    uint32_t napot_all = 0x7fffffff, cfg = 0x1f;
    CSRW(pmpaddr0, napot_all);
    CSRW(pmpcfg0, cfg);
    uninstall();

    uint32_t at_csr, at_ecall, after;
    install();
    CSRC(mstatus, MSTATUS_MPP | MSTATUS_MPIE); /* MPP = U, interrupts off in U */
    __asm__ volatile("la t0, 1f\n"
                     ".option push\n"
                     ".option arch, +zicsr\n"
                     "csrw mepc, t0\n"
                     "la %0, 2f\n"
                     "la %1, 3f\n"
                     "mret\n"
                     "1: nop\n" /* U-mode from here */
                     "2: csrr t0, mscratch\n" /* illegal in U: trap, stay in U */
                     "3: ecall\n" /* trap; the handler returns to M-mode */
                     ".option pop\n"
                     : "=&r"(at_csr), "=&r"(at_ecall)
                     :
                     : "t0", "memory");
    after = CSRR(mstatus); /* would trap (again) if still in U-mode */
    unsigned n = trap_count;
    uninstall();

    const volatile struct trap_rec *t0 = &traps[0], *t1 = &traps[1];
    printf("U-mode csrr mscratch: mcause=%lu mtval=%08lx MPP=%u mepc=%s\n",
           (unsigned long)t0->mcause, (unsigned long)t0->mtval, mpp(t0->mstatus),
           t0->mepc == at_csr ? "ok" : "WRONG");
    printf("U-mode ecall: mcause=%lu MPP=%u mepc=%s\n", (unsigned long)t1->mcause,
           mpp(t1->mstatus), t1->mepc == at_ecall ? "ok" : "WRONG");
    printf("back in M-mode: traps=%u, MPP after mret=%u\n", n, mpp(after));
    check(t0->mcause == 2 && t0->mtval == 0x340022f3 && mpp(t0->mstatus) == 0 &&
              t0->mepc == at_csr,
          "U-mode CSR access");
    check(t1->mcause == 8 && mpp(t1->mstatus) == 0 && t1->mepc == at_ecall, "U-mode ecall");
    check(n == 2 && mpp(after) == 0, "return to M-mode");
}

#define CSR_OP(insn, csr, src)                                                \
    ({                                                                        \
        uint32_t old_;                                                        \
        __asm__ volatile(CSR_ASM(insn " %0, " #csr ", %1")                    \
                         : "=r"(old_)                                         \
                         : "r"(src)                                           \
                         : "memory");                                         \
        old_;                                                                 \
    })
#define CSR_OPI(insn, csr, imm)                                               \
    ({                                                                        \
        uint32_t old_;                                                        \
        __asm__ volatile(CSR_ASM(insn " %0, " #csr ", " #imm) : "=r"(old_) : : "memory"); \
        old_;                                                                 \
    })

static void csr_step(const char *what, uint32_t old, uint32_t want_old, uint32_t want_new)
{
    uint32_t now = CSRR(mscratch);
    printf("mscratch %-24s old=%08lx new=%08lx\n", what, (unsigned long)old,
           (unsigned long)now);
    check(old == want_old && now == want_new, what);
}

static void test_csrs(void)
{
    uint32_t v = 0x12345678;
    CSRW(mscratch, v);
    csr_step("csrw 12345678", v, 0x12345678, 0x12345678);
    csr_step("csrrw deadbeef", CSR_OP("csrrw", mscratch, 0xdeadbeef), 0x12345678, 0xdeadbeef);
    csr_step("csrrs 00000110", CSR_OP("csrrs", mscratch, 0x110), 0xdeadbeef, 0xdeadbfff);
    csr_step("csrrc ff000000", CSR_OP("csrrc", mscratch, 0xff000000), 0xdeadbfff, 0x00adbfff);
    csr_step("csrrwi 31", CSR_OPI("csrrwi", mscratch, 31), 0x00adbfff, 0x0000001f);
    csr_step("csrrsi 0 (no write)", CSR_OPI("csrrsi", mscratch, 0), 0x1f, 0x1f);
    csr_step("csrrsi 16 (already set)", CSR_OPI("csrrsi", mscratch, 16), 0x1f, 0x1f);
    csr_step("csrrci 5", CSR_OPI("csrrci", mscratch, 5), 0x1f, 0x1a);
    uint32_t old;
    __asm__ volatile(CSR_ASM("csrrc %0, mscratch, x0") : "=r"(old) : : "memory");
    csr_step("csrrc with x0 (no write)", old, 0x1a, 0x1a);

    uint32_t misa = CSRR(misa);
    unsigned mxl = misa >> 30, i = (misa >> 8) & 1, m = (misa >> 12) & 1;
    printf("misa: MXL=%u I=%u M=%u\n", mxl, i, m);
    check(mxl == 1 && i && m, "misa");

    uint32_t hart = CSRR(mhartid);
    printf("mhartid: %lu\n", (unsigned long)hart);
    check(hart == 0, "mhartid");
}

/* 64-bit counter from a lo/hi CSR pair, read hi-lo-hi until consistent. */
#define READ64(lo, hi)                                                        \
    ({                                                                        \
        uint32_t h1_, l_, h2_;                                                \
        do {                                                                  \
            h1_ = CSRR(hi);                                                   \
            l_ = CSRR(lo);                                                    \
            h2_ = CSRR(hi);                                                   \
        } while (h1_ != h2_);                                                 \
        ((uint64_t)h1_ << 32) | l_;                                           \
    })

static volatile uint32_t sink;

static void busy(void)
{
    for (unsigned i = 0; i < 1000; i++)
        sink += i;
}

static void counter(const char *name, uint64_t a, uint64_t b)
{
    printf("%s increasing: %s\n", name, yesno(b > a));
    check(b > a, name);
}

static void test_counters(void)
{
    uint64_t a, b;
    a = READ64(mcycle, mcycleh);
    busy();
    b = READ64(mcycle, mcycleh);
    counter("mcycle", a, b);
    a = READ64(minstret, minstreth);
    busy();
    b = READ64(minstret, minstreth);
    counter("minstret", a, b);
    a = READ64(cycle, cycleh);
    busy();
    b = READ64(cycle, cycleh);
    counter("cycle", a, b);
    a = READ64(instret, instreth);
    busy();
    b = READ64(instret, instreth);
    counter("instret", a, b);
    /* time may tick slowly (QEMU: 10 MHz wall clock): wait for a change */
    a = READ64(time, timeh);
    b = a;
    for (unsigned i = 0; i < 10000000 && b == a; i++)
        b = READ64(time, timeh);
    counter("time", a, b);
}

int main(void)
{
    picolibc_mtvec = CSRR(mtvec);
    install();
    uint32_t readback = CSRR(mtvec);
    uninstall();
    printf("mtvec write/read back: %s\n", yesno(readback == (uint32_t)test_trap_handler));
    check(readback == (uint32_t)test_trap_handler, "mtvec");

    test_illegal();
    test_ecall_ebreak();
    test_access_faults();
    test_mstatus();
    test_user_mode();
    test_csrs();
    test_counters();

    printf("picolibc's mtvec restored: %s\n", yesno(CSRR(mtvec) == picolibc_mtvec));
    check(CSRR(mtvec) == picolibc_mtvec, "mtvec restored");
    printf("trap: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

/*
 * vectored_irq.c - vectored mtvec: exceptions go to the table's base, interrupt N to base +
 * 4N. A software interrupt (CLINT msip) and a timer interrupt are raised while mstatus.MIE is
 * clear, so both are pending when it is set: the software one is taken first (priority MEI >
 * MSI > MTI), then the timer's; an ecall goes to the base. Each handler records where it ran.
 *
 * machine-preset: virt
 * expect-exit: 0
 */
#include <stdio.h>

#include "virt.h"

static volatile char order[8];
static volatile uint32_t n;
static volatile uint32_t causes[4];

static void record(char what)
{
    causes[n] = CSRR(mcause);
    order[n++] = what;
}

void __attribute__((interrupt("machine"))) on_software(void)
{
    record('S');
    CLINT_MSIP = 0;
}

void __attribute__((interrupt("machine"))) on_timer(void)
{
    record('T');
    clint_set_mtimecmp(~0ull);
}

void __attribute__((interrupt("machine"))) on_exception(void)
{
    record('E');
    CSRW(mepc, CSRR(mepc) + 4); /* past the ecall */
}

void __attribute__((interrupt("machine"))) on_other(void)
{
    record('?');
}

/* The table: 4-byte jumps (no compressed `c.j`: each slot is one word). */
__asm__(".pushsection .text.vectors, \"ax\"\n"
        ".option push\n.option norvc\n"
        ".balign 64\n"
        "vectors:\n"
        "j on_exception\n" /* 0: exceptions */
        "j on_other\nj on_other\n"
        "j on_software\n" /* 3: machine software */
        "j on_other\nj on_other\nj on_other\n"
        "j on_timer\n" /* 7: machine timer */
        "j on_other\nj on_other\nj on_other\nj on_other\n"
        ".option pop\n"
        ".popsection\n");
extern char vectors[];

int main(void)
{
    CSRW(mtvec, (uint32_t)vectors | 1); /* mode 1: vectored */
    CSRS(mie, MIP_MSIP | MIP_MTIP);
    CLINT_MSIP = 1;
    clint_set_mtimecmp(clint_mtime() + 100);
    while (!(CSRR(mip) & MIP_MTIP))
        ;
    printf("pending before enabling: mip & (MSIP|MTIP) = 0x%02lx\n",
           (unsigned long)(CSRR(mip) & (MIP_MSIP | MIP_MTIP)));
    CSRS(mstatus, MSTATUS_MIE);
    __asm__ volatile(".option push\n.option norvc\necall\n.option pop");
    CSRC(mstatus, MSTATUS_MIE);
    for (uint32_t i = 0; i < n; i++)
        printf("%c mcause 0x%08lx\n", order[i], (unsigned long)causes[i]);
    return 0;
}

/*
 * timer_irq.c - a periodic machine timer interrupt (CLINT mtimecmp, direct-mode mtvec) that
 * wakes the hart from wfi ten times; the handler re-arms the timer one period after the
 * present mtime. Only what holds on any machine is printed: the tick count, mcause, and
 * that ten periods (and less than twelve) have passed.
 *
 * machine-preset: virt
 * expect-exit: 0
 */
#include <stdio.h>

#include "virt.h"

#define PERIOD 100000u /* mtime ticks: 10 ms at 10 MHz */

static volatile uint32_t ticks;
static volatile uint32_t cause;

static void __attribute__((interrupt("machine"), aligned(4))) on_interrupt(void)
{
    cause = CSRR(mcause);
    ticks++;
    clint_set_mtimecmp(clint_mtime() + PERIOD);
}

int main(void)
{
    CSRW(mtvec, (uint32_t)on_interrupt);
    uint64_t start = clint_mtime();
    clint_set_mtimecmp(start + PERIOD);
    CSRS(mie, MIP_MTIP);
    CSRS(mstatus, MSTATUS_MIE);
    uint32_t wakeups = 0;
    while (ticks < 10) {
        wfi();
        wakeups++;
    }
    CSRC(mstatus, MSTATUS_MIE);
    uint64_t elapsed = clint_mtime() - start;
    printf("ticks %lu, mcause 0x%08lx\n", (unsigned long)ticks, (unsigned long)cause);
    printf("woken at least 10 times: %s\n", wakeups >= 10 ? "yes" : "no");
    printf("at least 10 periods passed: %s\n", elapsed >= 10ull * PERIOD ? "yes" : "no");
    printf("fewer than 12 periods passed: %s\n", elapsed < 12ull * PERIOD ? "yes" : "no");
    return 0;
}

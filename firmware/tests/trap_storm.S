/*
 * trap_storm.S - freestanding: a trap handler that faults before it returns, every time.
 * The handler pushes onto a stack pointer that points at nothing (0x9000_0000); its second
 * instruction faults, which enters the handler again, and so on: it retires an instruction
 * each time, so only counting traps without an `mret` ends it. mxpsim must stop with a clear
 * error naming the first trap and the handler's fault (exit status 121).
 *
 * qemu: skip (QEMU would loop forever)
 * expect-exit: 121
 */
#include "trap_start.h"
    li      sp, 0x90000000
    .word   0x00000000      /* illegal: the all-zero word is reserved */
    j       _start

    .balign 4
handler:
    addi    sp, sp, -16
    sw      ra, 12(sp)      /* faults: nothing is mapped there */
    mret

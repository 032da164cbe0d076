/*
 * trap_retry.S - freestanding: a trap handler that returns to the instruction that trapped,
 * changing nothing, so it traps again at once, forever. Each round retires an instruction
 * (the `mret`) and every trap has its `mret`: only noticing that the trapping instruction is
 * the first one after each return, at the same place and for the same reason, ends it.
 * mxpsim must stop with a clear error (exit status 121).
 *
 * qemu: skip (QEMU would loop forever)
 * expect-exit: 121
 */
#include "trap_start.h"
    .word   0x00000000      /* illegal: the all-zero word is reserved */
    j       _start

    .balign 4
handler:
    nop
    mret

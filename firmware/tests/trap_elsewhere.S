/*
 * trap_elsewhere.S - freestanding: a trap handler that returns, not to the instruction that
 * trapped, but to the one before it (a `nop`), which leads straight back to the same trap.
 * Each round retires five instructions (the handler's four and the `nop`), and the handler
 * never returns to the trapping instruction itself: only seeing the same trap come back in
 * the same state (every register and CSR alike, no memory touched in between) ends it.
 * mxpsim must stop with a clear error (exit status 121).
 *
 * qemu: skip (QEMU would loop forever)
 * expect-exit: 121
 */
#include "trap_start.h"
again:
    nop
    .word   0x00000000      /* illegal: the all-zero word is reserved */
    j       _start

    .balign 4
handler:
    la      t0, again
    csrw    mepc, t0
    mret

/*
 * trap_start.h - the start the freestanding trap-loop tests share: `_start` points mtvec
 * at the program's `handler`. Include it first; the program's own code follows.
 */
    .option arch, +zicsr
    .section .text.init, "ax", @progbits
    .globl  _start
_start:
    la      t0, handler
    csrw    mtvec, t0

/*
 * no_trap_handler.S - freestanding: executes an illegal instruction before anything has
 * set mtvec. The trap goes to mtvec's reset value, 0, where nothing is mapped, so the
 * handler's first fetch faults too. mxpsim must stop with a clear error naming the first
 * trap (exit status 121) instead of looping; the CLI tests check the message.
 *
 * qemu: skip (QEMU's reset mtvec points at its boot ROM, not at nothing)
 * expect-exit: 121
 */
    .section .text.init, "ax", @progbits
    .globl  _start
_start:
    li      a0, 1
    .word   0x00000000      /* illegal: the all-zero word is reserved */
    j       _start

/*
 * htif_console.S - freestanding program printing through the HTIF console, as Spike's
 * `bcd` device serves it: for each byte, wait until `tohost` is zero (the host has taken
 * the previous one), then write `1 << 56 | 1 << 48 | byte` to it, low word first, then the
 * high word. Then it passes (tohost = 1, riscv-tests style). The text has odd bytes ('e',
 * 'o', 'I', 'F'): a low word alone that looks like a verdict must not end the run.
 * It also checks that the host answered the last byte in `fromhost` (Spike's reply:
 * 1 << 56 | 1 << 48 | 0x100 | byte), else it fails test 2.
 *
 * qemu: skip (QEMU virt has no HTIF)
 * expect-exit: 0
 */
#define TESTNUM gp

    .section .text.init, "ax", @progbits
    .globl  _start
_start:
    la      s0, message
    la      t0, tohost
    li      s1, 0x01010000          /* device 1 (console), command 1 (write) */
next:
    lbu     a0, 0(s0)
    beqz    a0, done
wait:
    lw      t1, 0(t0)
    lw      t2, 4(t0)
    or      t1, t1, t2
    bnez    t1, wait
    sw      a0, 0(t0)
    sw      s1, 4(t0)
    addi    s0, s0, 1
    j       next
done:
    /* test 2: fromhost holds the reply to the last byte, '\n' */
    li      TESTNUM, 2
    la      t1, fromhost
    lw      t2, 0(t1)
    li      t3, 0x10a
    bne     t2, t3, fail
    lw      t2, 4(t1)
    bne     t2, s1, fail
    j       pass

#include "tohost.h"

    .section .rodata
message:
    .asciz  "Hello, HTIF!\n"

/*
 * tohost_pass.S - freestanding riscv-tests style program (no libc, no
 * crt0, no semihosting): runs a few tests, numbering them in gp (TESTNUM),
 * and reports through the HTIF `tohost` word: 1 = pass, (N << 1) | 1 =
 * test N failed; then spins forever re-writing it, as riscv-tests do.
 * Here all tests pass, so it writes 1 to tohost.
 *
 * `tohost` and `fromhost` are 64-bit words in section .tohost, 64-byte
 * aligned; the low word is written first, then the high word (0).
 * Linked with -nostdlib -nostartfiles, .text at 0x80000000, entry _start.
 *
 * qemu: skip (QEMU virt has no HTIF: nothing watches tohost, so it would spin forever)
 * expect-exit: 0
 */
#define TESTNUM gp

    .section .text.init, "ax", @progbits
    .globl  _start
_start:
    /* test 2: 40 + 2 == 42 */
    li      TESTNUM, 2
    li      a0, 40
    addi    a0, a0, 2
    li      a1, 42
    bne     a0, a1, fail

    /* test 3: 6 * 7 == 42 */
    li      TESTNUM, 3
    li      a0, 6
    li      a1, 7
    mul     a0, a0, a1
    li      a1, 42
    bne     a0, a1, fail

#include "tohost.h"

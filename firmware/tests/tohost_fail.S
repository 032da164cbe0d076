/*
 * tohost_fail.S - freestanding riscv-tests style program (no libc, no
 * crt0, no semihosting): runs a few tests, numbering them in gp (TESTNUM),
 * and reports through the HTIF `tohost` word: 1 = pass, (N << 1) | 1 =
 * test N failed; then spins forever re-writing it, as riscv-tests do.
 * Here test 3 fails ON PURPOSE, so it writes (3 << 1) | 1 = 7 to tohost
 * and the simulator must exit with status 3.
 *
 * `tohost` and `fromhost` are 64-bit words in section .tohost, 64-byte
 * aligned; the low word is written first, then the high word (0).
 * Linked with -nostdlib -nostartfiles, .text at 0x80000000, entry _start.
 *
 * qemu: skip (QEMU virt has no HTIF: nothing watches tohost, so it would spin forever)
 * expect-exit: 3
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

    /* test 3: DELIBERATELY WRONG: expects 6 * 7 == 43 */
    li      TESTNUM, 3
    li      a0, 6
    li      a1, 7
    mul     a0, a0, a1
    li      a1, 43
    bne     a0, a1, fail

    /* test 4: never reached */
    li      TESTNUM, 4
    j       pass

#include "tohost.h"

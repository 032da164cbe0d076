/*
 * tohost.h - the riscv-tests reporting tail for freestanding programs:
 * `pass` writes 1 to the HTIF `tohost` word, `fail` writes (TESTNUM << 1) | 1
 * (test TESTNUM failed); both then spin re-writing it, as riscv-tests do.
 * `tohost` and `fromhost` are 64-bit words in section .tohost, 64-byte
 * aligned; the low word is written first, then the high word (0).
 * Include it at the end of the program's .text, after defining TESTNUM.
 */
pass:
    li      a0, 1
    j       write_tohost

fail:
    slli    a0, TESTNUM, 1
    ori     a0, a0, 1

write_tohost:
    la      t0, tohost
1:  sw      a0, 0(t0)
    sw      zero, 4(t0)
    j       1b

    .section .tohost, "aw", @progbits
    .balign 64
    .globl  tohost
tohost:
    .dword  0
    .balign 64
    .globl  fromhost
fromhost:
    .dword  0

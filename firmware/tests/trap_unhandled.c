/*
 * trap_unhandled.c - an illegal instruction with no handler of our own:
 * picolibc's crt0 trap handler (crt0-semihost) prints "RISCV fault" and a
 * register dump (with printf, i.e. to the same console as stdout: picolibc
 * 1.8's semihosting stdout and stderr are one stream) and exits with 1.
 *
 * To make the dump identical on every correct implementation, every
 * register the handler prints is first set to a known value: xN = 0xNNNNNNNN
 * (bytes = N). The handler itself sets sp (to its own frame, __stack - 140)
 * and gp (__global_pointer$) before saving them, so those two and mepc are
 * addresses in this ELF; mcause = 2; mtval = 0 (the faulting word is
 * .word 0, so both "mtval = instruction bits" and "mtval = 0" give 0).
 *
 * The expected output therefore depends on this ELF: after changing this
 * file or the toolchain, recompute gp and mepc with `nm` (symbols
 * __global_pointer$ and fault_here).
 *
 * expect-exit: 1
 */
#include <stdio.h>

#define SET(r, n) "li " #r ", 0x" #n #n #n #n "\n"

int main(void)
{
    printf("about to execute an illegal instruction\n");
    __asm__ volatile(SET(x1, 01) SET(x2, 02) SET(x3, 03) SET(x4, 04) SET(x5, 05) SET(x6, 06)
                         SET(x7, 07) SET(x8, 08) SET(x9, 09) SET(x10, 0a) SET(x11, 0b)
                             SET(x12, 0c) SET(x13, 0d) SET(x14, 0e) SET(x15, 0f)
                                 SET(x16, 10) SET(x17, 11) SET(x18, 12) SET(x19, 13)
                                     SET(x20, 14) SET(x21, 15) SET(x22, 16) SET(x23, 17)
                                         SET(x24, 18) SET(x25, 19) SET(x26, 1a) SET(x27, 1b)
                                             SET(x28, 1c) SET(x29, 1d) SET(x30, 1e)
                                                 SET(x31, 1f)
                     ".globl fault_here\n"
                     "fault_here: .word 0x00000000\n");
    __builtin_unreachable();
}

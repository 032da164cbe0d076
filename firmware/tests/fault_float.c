/*
 * fault_float.c - executes fadd.s, an F-extension instruction (written as a word: the
 * program is rv32im): an illegal instruction on mxpsim's RV32IM core. The program's own trap
 * handler (fault_handler.h) prints "trapped" and exits 1; mxpsim adds a note naming the extension.
 *
 * qemu: skip (QEMU's CPU has F; whether it traps depends on mstatus.FS)
 * expect-exit: 1
 */
#include "fault_handler.h"

int main(void)
{
    install_fault_handler();
    __asm__ volatile(".word 0x00b57553"); /* fadd.s fa0, fa0, fa1 */
    return 0;
}

/*
 * fault_handler.h - a trap handler of the firmware's own for the fault_* programs: it
 * prints "trapped" and exits 1 (so their output does not depend on register values, as
 * picolibc's register dump would). Call install_fault_handler() first in main.
 */
#include <stdio.h>
#include <stdlib.h>

void __attribute__((noreturn)) fault_handler_on_trap(void)
{
    printf("trapped\n");
    exit(1);
}

__asm__(".text\n.balign 4\nfault_handler_entry:\n    j fault_handler_on_trap\n");
extern char fault_handler_entry[];

static inline void install_fault_handler(void)
{
    /* (The programs are built for rv32im: Zicsr just for this instruction.) */
    __asm__ volatile(".option push\n.option arch, +zicsr\ncsrw mtvec, %0\n.option pop" : : "r"(fault_handler_entry));
}

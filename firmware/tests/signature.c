/*
 * signature.c - a signature region as the RISC-V architecture tests lay it out: the words
 * between the symbols begin_signature and end_signature, which `mxpsim --signature FILE`
 * dumps at the end of the run (Spike's format). The program stores the first four words
 * through the cache (with the default write-back cache they are still dirty at exit: the
 * dump must show memory as the CPU sees it) and leaves the fifth as initialised.
 *
 * Signature (4-byte granularity): 11111111, 22222222, 33333333, 44444444, deadbeef.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>

/* Five words, 16-byte aligned, named as the architecture tests' linker scripts name them. */
__asm__(".section .data\n"
        ".balign 16\n"
        ".global begin_signature\n"
        "begin_signature:\n"
        ".fill 5, 4, 0xdeadbeef\n"
        ".global end_signature\n"
        "end_signature:\n"
        ".text\n");
extern volatile uint32_t begin_signature[];

int main(void)
{
    for (uint32_t i = 0; i < 4; i++)
        begin_signature[i] = (i + 1) * 0x11111111u;
    printf("signature written\n");
    return 0;
}

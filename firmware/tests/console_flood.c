/*
 * console_flood.c - prints numbered lines to the console: as many as its
 * argument says (`mxpsim run console_flood.elf -- N`: picolibc's crt0 puts
 * the ELF's name in argv[1], so N is argv[2]), 100 without one, and without
 * end for 0. For the test of a console whose reader goes away
 * (`mxpsim run console_flood.elf -- 0 | head`): the run must stop, not print
 * into a closed pipe for ever.
 *
 * expect-exit: 0
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long lines = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
    for (unsigned long i = 0; lines == 0 || i < lines; i++)
        printf("line %lu of the console flood\n", i);
    return 0;
}

/*
 * hello.c - the smallest picolibc program: print a greeting, return 0.
 *
 * expect-exit: 0
 */
#include <stdio.h>

int main(void)
{
    printf("Hello from mxpsim!\n");
    return 0;
}

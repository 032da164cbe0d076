/*
 * exit_main.c - the exit status is main()'s return value (crt0 calls
 * exit(main(...))).
 *
 * expect-exit: 7
 */
#include <stdio.h>

int main(void)
{
    printf("returning 7 from main\n");
    return 7;
}

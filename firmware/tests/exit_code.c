/*
 * exit_code.c - exit(N) from a nested call, after printing; an atexit
 * handler runs first and its output must appear too; the code after exit()
 * must not run.
 *
 * expect-exit: 42
 */
#include <stdio.h>
#include <stdlib.h>

static void on_exit_handler(void)
{
    printf("atexit handler ran\n");
}

static void __attribute__((noinline, noreturn)) leave(int code)
{
    printf("calling exit(%d)\n", code);
    exit(code);
}

int main(void)
{
    if (atexit(on_exit_handler) != 0) {
        printf("atexit failed\n");
        return 1;
    }
    leave(42);
    printf("NOT REACHED\n");
    return 0;
}

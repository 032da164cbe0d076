/*
 * stdio_misc.c - the rest of picolibc's stdio over semihosting: puts,
 * putchar, fputc, fputs, fwrite, fprintf(stdout), fflush, return values;
 * fprintf(stderr); isatty(1); and reading the console with stdin at EOF.
 *
 * Console streams: in picolibc 1.8's semihost library, stdin, stdout and
 * stderr are ONE FILE that writes every character with SYS_WRITEC (0x03)
 * and reads with SYS_READC (0x07). So the stderr line below is part of the
 * console output (and of stdio_misc.expected) like everything else.
 *
 * Stdin at EOF: getchar() cannot report EOF with picolibc 1.8 (it returns
 * SYS_READC's result as an unsigned char, and QEMU blocks in SYS_READC), so
 * this reads the semihosting console handle instead: open(":tt", O_RDONLY)
 * (SYS_OPEN ":tt", mode "r") and read() (SYS_READ), for which "0 bytes
 * read" means end of file. (QEMU 7.2 returns 0 bytes even when input is
 * available, so under QEMU this only checks that the call does not block.)
 *
 * isatty(fd) is SYS_FLEN(fd) <= 0 in picolibc 1.8: 1 for a console handle
 * (and for an invalid one).
 *
 * expect-exit: 0
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned checks, failures;

static void check(int ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        printf("  FAIL: %s\n", what);
    }
}

int main(void)
{
    int r;

    r = puts("puts: a line");
    check(r >= 0, "puts return value");

    r = putchar('p');
    check(r == 'p', "putchar return value");
    putchar('u');
    putchar('t');
    putchar('c');
    putchar('h');
    putchar('a');
    putchar('r');
    putchar('\n');

    r = fputc('f', stdout);
    check(r == 'f', "fputc return value");
    fputc('\n', stdout);

    r = fputs("fputs: no newline added", stdout);
    check(r >= 0, "fputs return value");
    fputs("\n", stdout);

    static const char data[] = "fwrite: 3 records of 8 bytes\n"; /* 29 chars + NUL */
    size_t n = fwrite(data, 8, 3, stdout);
    fwrite(data + 24, 1, strlen(data + 24), stdout);
    check(n == 3, "fwrite return value");

    r = fprintf(stdout, "fprintf(stdout): %d%s\n", 42, "!");
    check(r == 21, "fprintf return value");

    r = fprintf(stderr, "fprintf(stderr): same console as stdout\n");
    check(r == 40, "fprintf(stderr) return value");

    r = fflush(stdout);
    check(r == 0, "fflush(stdout)");

    /* a character with the high bit set, and a tab, pass through unchanged */
    printf("bytes: [\t] [\xe9] [~]\n");

    printf("isatty(1): %d\n", isatty(1));
    check(isatty(1) == 1, "isatty(1)");

    int fd = open(":tt", O_RDONLY);
    printf("open(\":tt\", O_RDONLY): %s\n", fd >= 0 ? "ok" : "FAILED");
    check(fd >= 0, "open :tt");
    if (fd >= 0) {
        char buf[16];
        ssize_t got = read(fd, buf, sizeof buf);
        printf("read(console, 16) with stdin at EOF: %d\n", (int)got);
        check(got == 0, "read at EOF");
        got = read(fd, buf, sizeof buf);
        printf("read again: %d\n", (int)got);
        check(got == 0, "read at EOF again");
    }

    printf("stdio_misc: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

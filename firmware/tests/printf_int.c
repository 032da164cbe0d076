/*
 * printf_int.c - picolibc printf/snprintf integer formatting: %d %i %u %x
 * %X %o %c %s %p %%, flags - + space # 0, width, precision, '*' width and
 * precision, length modifiers hh h l ll z j t, extreme values, several
 * 64-bit arguments mixed with 32-bit ones (register-pair alignment of
 * varargs), printf's return value, and snprintf truncation.
 *
 * Each case is formatted twice: with vsnprintf (compared against the
 * expected string, as is its return value) and with vprintf straight to the
 * console (so the output checks the stdout path). Returns 1 on mismatch.
 *
 * Needs picolibc's default ("double") printf variant: the integer-only
 * variant (-DPICOLIBC_INTEGER_PRINTF_SCANF) lacks %lld in picolibc 1.8.
 *
 * expect-exit: 0
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned checks, failures;

static void __attribute__((format(printf, 2, 3))) t(const char *want, const char *fmt, ...)
{
    char buf[128];
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    printf("%s => [", fmt);
    int m = vprintf(fmt, ap2);
    printf("]\n");
    va_end(ap2);
    va_end(ap);
    checks++;
    if (strcmp(buf, want) != 0 || n != (int)strlen(want) || m != n) {
        failures++;
        printf("  MISMATCH: want [%s] (%d chars), snprintf gave [%s] (%d), printf %d\n", want,
               (int)strlen(want), buf, n, m);
    }
}

/* For formats that are deliberately odd (a flag the C standard says is
 * ignored in that combination), without gcc's -Wformat complaint. */
#define T_ODD(...)                                                            \
    _Pragma("GCC diagnostic push");                                           \
    _Pragma("GCC diagnostic ignored \"-Wformat\"");                           \
    t(__VA_ARGS__);                                                           \
    _Pragma("GCC diagnostic pop")

/* snprintf through a volatile pointer: gcc can neither compute the result
 * at compile time (-fprintf-return-value) nor warn about the (deliberate)
 * truncation. */
static int (*volatile snprintf_)(char *, size_t, const char *, ...) = snprintf;

static void check(const char *what, int ok)
{
    checks++;
    printf("%s: %s\n", what, ok ? "ok" : "FAIL");
    if (!ok)
        failures++;
}

int main(void)
{
    printf("== conversions\n");
    t("0", "%d", 0);
    t("42", "%d", 42);
    t("-42", "%d", -42);
    t("-7", "%i", -7);
    t("2147483647", "%d", INT_MAX);
    t("-2147483648", "%d", INT_MIN);
    t("-2147483648", "%i", INT_MIN);
    t("0", "%u", 0u);
    t("4294967295", "%u", UINT_MAX);
    t("2147483648", "%u", (unsigned)INT_MIN);
    t("deadbeef", "%x", 0xdeadbeefu);
    t("DEADBEEF", "%X", 0xdeadbeefu);
    t("0", "%x", 0u);
    t("10", "%o", 8u);
    t("37777777777", "%o", UINT_MAX);
    t("A", "%c", 'A');
    t("hello", "%s", "hello");
    t("", "%s", "");
    t("%", "%%");
    t("100%", "%d%%", 100);
    t("0x80001234", "%p", (void *)0x80001234);
    t("0xffffffff", "%p", (void *)0xffffffff);
    t("a1b", "%c%d%c", 'a', 1, 'b');

    printf("== flags and width\n");
    t("   42", "%5d", 42);
    t("42   |", "%-5d|", 42);
    t("00042", "%05d", 42);
    t("-0042", "%05d", -42);
    t("+42", "%+d", 42);
    t("-42", "%+d", -42);
    t("+0", "%+d", 0);
    t(" 42", "% d", 42);
    t("-42", "% d", -42);
    T_ODD("+42", "%+ d", 42);
    t(" 0042", "% 05d", 42);
    T_ODD("42   |", "%-05d|", 42);
    t("  +42", "%+5d", 42);
    t("+42  |", "%-+5d|", 42);
    t("12345", "%3d", 12345);
    t("0xff", "%#x", 255u);
    t("0XFF", "%#X", 255u);
    t("010", "%#o", 8u);
    t("0", "%#x", 0u);
    t("0", "%#o", 0u);
    t("0x0000ff", "%#08x", 255u);
    t("    0xff", "%#8x", 255u);
    t("0xff    |", "%-#8x|", 255u);
    t("000000ff", "%08x", 255u);
    T_ODD("42", "%+u", 42u);
    T_ODD("ff", "% x", 255u);
    t("    x|", "%5c|", 'x');
    t("x  |", "%-3c|", 'x');
    t("        hi|", "%10s|", "hi");
    t("hi        |", "%-10s|", "hi");
    t("hello", "%2s", "hello");

    printf("== precision\n");
    t("     005", "%8.3d", 5);
    t("-005", "%.3d", -5);
    t("", "%.0d", 0);
    t("     |", "%5.0d|", 0);
    t("+", "%+.0d", 0);
    t("", "%.0x", 0u);
    t("000ab", "%.5x", 0xabu);
    t("0x000ab", "%#.5x", 0xabu);
    T_ODD("     005", "%08.3d", 5);
    t("12345", "%.3d", 12345);
    t("010", "%#.3o", 8u);
    t("00010", "%#.5o", 8u);
    t("he", "%.2s", "hello");
    t("hello", "%.10s", "hello");
    t("   he|", "%5.2s|", "hello");
    t("", "%.0s", "hello");

    printf("== * width and precision\n");
    t("    42", "%*d", 6, 42);
    t("42    |", "%-*d|", 6, 42);
    t("42    |", "%*d|", -6, 42);
    t("0007", "%.*d", 4, 7);
    t("7", "%.*d", -1, 7);
    t("   -0007", "%*.*d", 8, 4, -7);
    t("abc  |", "%-*.*s|", 5, 3, "abcdef");

    printf("== length modifiers\n");
    t("-56", "%hhd", 200);
    t("-128", "%hhd", -128);
    t("127", "%hhi", 127);
    t("44", "%hhu", 300);
    t("ff", "%hhx", 0x1ff);
    t("-25536", "%hd", 40000);
    t("-32768", "%hd", -32768);
    t("4464", "%hu", 70000);
    t("2345", "%hx", 0x12345);
    t("FFFF", "%hX", -1);
    t("-2147483648", "%ld", LONG_MIN);
    t("2147483647", "%ld", LONG_MAX);
    t("4294967295", "%lu", ULONG_MAX);
    t("89abcdef", "%lx", 0x89abcdefUL);
    t("-9223372036854775808", "%lld", LLONG_MIN);
    t("9223372036854775807", "%lld", LLONG_MAX);
    t("-1", "%lli", -1LL);
    t("18446744073709551615", "%llu", ULLONG_MAX);
    t("4294967296", "%llu", 4294967296ULL);
    t("123456789abcdef", "%llx", 0x0123456789abcdefULL);
    t("0XFEDCBA9876543210", "%#llX", 0xfedcba9876543210ULL);
    t("1777777777777777777777", "%llo", ULLONG_MAX);
    t("4294967295", "%zu", (size_t)SIZE_MAX);
    t("abc", "%zx", (size_t)0xabc);
    t("-9223372036854775808", "%jd", (intmax_t)INTMAX_MIN);
    t("18446744073709551615", "%ju", (uintmax_t)UINTMAX_MAX);
    t("-5", "%td", (ptrdiff_t)-5);
    t("7fffffff", "%tx", (ptrdiff_t)PTRDIFF_MAX);
    t("        -12345678901|", "%20lld|", -12345678901LL);
    t("-12345678901        |", "%-20lld|", -12345678901LL);
    t("00000012345678901234", "%020llu", 12345678901234ULL);
    t("+9223372036854775807", "%+lld", LLONG_MAX);
    t("0000000000000000000001", "%.22llo", 1ULL);

    printf("== mixed 32/64-bit arguments\n");
    t("1 2 3", "%d %lld %d", 1, 2LL, 3);
    t("1 -2 3 4", "%d %lld %lld %d", 1, -2LL, 3LL, 4);
    t("ffffffffffffffff x 7fffffff", "%llx %c %x", ULLONG_MAX, 'x', 0x7fffffffu);
    t("a 4294967296 b 18446744073709551615", "%c %llu %c %llu", 'a', 4294967296ULL, 'b',
      ULLONG_MAX);
    t("|   ab|ab   |x|", "%s|%5s|%-5s|%.1s|", "", "ab", "ab", "xyz");

    printf("== return values and truncation\n");
    char buf[16];
    int n = printf("printf returns the number of characters\n");
    check("printf return value == 40", n == 40);
    n = sprintf(buf, "%d-%d", 12, -34);
    printf("sprintf -> [%s] returns %d\n", buf, n);
    check("sprintf", n == 6 && strcmp(buf, "12--34") == 0);

    memset(buf, 'X', sizeof buf);
    n = snprintf_(buf, 8, "%s", "hello world");
    printf("snprintf(buf, 8, \"%%s\", \"hello world\") -> [%s] returns %d, buf[8]=%c\n", buf, n,
           buf[8]);
    check("snprintf truncation", n == 11 && strcmp(buf, "hello w") == 0 && buf[8] == 'X');

    memset(buf, 'X', sizeof buf);
    n = snprintf_(buf, 1, "%d", 12345);
    printf("snprintf(buf, 1, \"%%d\", 12345) -> [%s] returns %d, buf[1]=%c\n", buf, n, buf[1]);
    check("snprintf size 1", n == 5 && buf[0] == '\0' && buf[1] == 'X');

    memset(buf, 'X', sizeof buf);
    n = snprintf_(buf, 0, "%d", 12345);
    printf("snprintf(buf, 0, \"%%d\", 12345) returns %d, buf[0]=%c\n", n, buf[0]);
    check("snprintf size 0", n == 5 && buf[0] == 'X');

    n = snprintf_(NULL, 0, "%lld", LLONG_MIN);
    printf("snprintf(NULL, 0, \"%%lld\", LLONG_MIN) returns %d\n", n);
    check("snprintf(NULL, 0)", n == 20);

    memset(buf, 'X', sizeof buf);
    n = snprintf_(buf, 6, "%05d", -42);
    printf("snprintf(buf, 6, \"%%05d\", -42) -> [%s] returns %d\n", buf, n);
    check("snprintf exact fit", n == 5 && strcmp(buf, "-0042") == 0);

    memset(buf, 'X', sizeof buf);
    n = snprintf_(buf, 5, "%05d", -42);
    printf("snprintf(buf, 5, \"%%05d\", -42) -> [%s] returns %d, buf[5]=%c\n", buf, n, buf[5]);
    check("snprintf one short", n == 5 && strcmp(buf, "-004") == 0 && buf[5] == 'X');

    memset(buf, 'X', sizeof buf);
    n = snprintf_(buf, sizeof buf, "%llu%llu", ULLONG_MAX, ULLONG_MAX);
    printf("snprintf(buf, 16, \"%%llu%%llu\", ULLONG_MAX, ULLONG_MAX) -> [%s] returns %d\n", buf,
           n);
    check("snprintf 64-bit truncation", n == 40 && strcmp(buf, "184467440737095") == 0);

    printf("printf_int: %u checks, %u failures\n", checks, failures);
    return failures != 0;
}

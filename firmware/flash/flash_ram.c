/*
 * flash_ram.c - linked as a board image: code and read-only data in flash at 0x2000_0000
 * (QEMU virt's flash; a ROM region of mxpsim's `virt` machine), initialised data copied by
 * crt0 from flash into RAM at 0x8000_0000, zeroed data, heap and stack in RAM. Checks where
 * each lives and that the copy happened. (A store into flash is an access fault on mxpsim
 * and a flash command on QEMU: not done here; models/src/memory_system/tests.rs pins it.)
 *
 * machine-preset: virt
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int counter = 41;
static int zeroed;
static const char greeting[] = "code and constants in flash, data in RAM";

static const char *where(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (a >= 0x20000000u && a < 0x24000000u)
        return "flash";
    if (a >= 0x80000000u && a < 0x88000000u)
        return "RAM";
    return "elsewhere";
}

int main(void)
{
    counter++;
    int *heap = malloc(16);
    int local = 0;
    printf("%s\n", greeting);
    printf("main: %s, greeting: %s, counter: %s, zeroed: %s, heap: %s, stack: %s\n", where((void *)main),
           where(greeting), where(&counter), where(&zeroed), where(heap), where(&local));
    printf("counter %d, zeroed %d\n", counter, zeroed);
    free(heap);
    return 0;
}

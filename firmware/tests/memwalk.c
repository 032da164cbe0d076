/*
 * memwalk.c - walks a 48 KiB array with a 32-byte stride, several times: a data footprint
 * larger than the default 16 KiB cache, so the cycle count depends on the cache size and
 * the memory latency. Plain C, so QEMU runs it too.
 *
 * expect-exit: 0
 */
#include <stdint.h>
#include <stdio.h>

#define WORDS (48 * 1024 / 4)

static uint32_t array[WORDS];

int main(void)
{
    for (uint32_t i = 0; i < WORDS; i++)
        array[i] = i * 2654435761u;
    uint32_t sum = 0;
    for (int pass = 0; pass < 4; pass++)
        for (uint32_t i = 0; i < WORDS; i += 8)
            sum += array[i] ^ (uint32_t)pass;
    printf("memwalk sum: %08x\n", (unsigned)sum);
    return 0;
}

/*
 * uart_console.c - prints through the ns16550a UART (polling LSR.THRE before each byte),
 * then reads the UART until LSR.DR says nothing more is waiting, and echoes what came, with
 * the count (the tests run it with no input: 0 bytes).
 *
 * machine-preset: virt
 * expect-exit: 0
 */
#include "virt.h"

static void put_number(uint32_t v)
{
    char digits[10];
    int i = 0;
    do {
        digits[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i)
        uart_putc(digits[--i]);
}

int main(void)
{
    uart_puts("Hello from the UART!\n");
    char echo[64];
    uint32_t received = 0;
    while ((UART_REG(UART_LSR) & UART_LSR_DR) && received < sizeof echo)
        echo[received++] = (char)UART_REG(UART_RBR_THR);
    uart_puts("received ");
    put_number(received);
    uart_puts(" bytes: ");
    for (uint32_t i = 0; i < received; i++)
        uart_putc(echo[i]);
    uart_putc('\n');
    return 0;
}

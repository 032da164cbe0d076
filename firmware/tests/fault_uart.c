/*
 * fault_uart.c - reads the line-status register of QEMU virt's UART (0x10000005), which
 * mxpsim does not have: a load access fault. The program's own trap handler (fault_handler.h)
 * prints "trapped" and exits 1; mxpsim adds a note naming the address and what virt has there.
 *
 * qemu: skip (QEMU virt has the UART: the load succeeds there)
 * expect-exit: 1
 */
#include <stdint.h>
#include <stdio.h>
#include "fault_handler.h"

int main(void)
{
    install_fault_handler();
    volatile uint8_t *lsr = (volatile uint8_t *)0x10000005;
    printf("LSR %u\n", *lsr);
    return 0;
}

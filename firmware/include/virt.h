/*
 * virt.h - QEMU `virt`'s devices as mxpsim's `virt` machine has them (machines/virt.toml):
 * the CLINT (machine timer and software interrupts) and the ns16550a UART, and the interrupt
 * bits that go with them (CSR access: csr.h).
 */
#ifndef VIRT_H
#define VIRT_H

#include <stdint.h>

#include "csr.h"

#define VIRT_CLINT 0x02000000u
#define VIRT_UART  0x10000000u
#define VIRT_MTIMEBASE_HZ 10000000u

#define CLINT_MSIP     (*(volatile uint32_t *)(VIRT_CLINT + 0x0))
#define CLINT_MTIMECMP ((volatile uint32_t *)(VIRT_CLINT + 0x4000))
#define CLINT_MTIME    ((volatile uint32_t *)(VIRT_CLINT + 0xbff8))

#define UART_REG(off) (*(volatile uint8_t *)(VIRT_UART + (off)))
#define UART_RBR_THR 0
#define UART_LSR 5
#define UART_LSR_DR 0x01
#define UART_LSR_THRE 0x20

#define MIP_MSIP (1u << 3)
#define MIP_MTIP (1u << 7)

static inline void wfi(void)
{
    __asm__ volatile("wfi" : : : "memory");
}

/* mtime, read as two halves without tearing. */
static inline uint64_t clint_mtime(void)
{
    uint32_t hi, lo;
    do {
        hi = CLINT_MTIME[1];
        lo = CLINT_MTIME[0];
    } while (hi != CLINT_MTIME[1]);
    return (uint64_t)hi << 32 | lo;
}

/* mtimecmp, written so that no intermediate value lies below both the old and the new one. */
static inline void clint_set_mtimecmp(uint64_t t)
{
    CLINT_MTIMECMP[1] = 0xffffffffu;
    CLINT_MTIMECMP[0] = (uint32_t)t;
    CLINT_MTIMECMP[1] = (uint32_t)(t >> 32);
}

static inline void uart_putc(char c)
{
    while (!(UART_REG(UART_LSR) & UART_LSR_THRE))
        ;
    UART_REG(UART_RBR_THR) = (uint8_t)c;
}

static inline void uart_puts(const char *s)
{
    while (*s)
        uart_putc(*s++);
}

#endif

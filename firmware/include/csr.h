/*
 * csr.h - CSR access for firmware built -march=rv32im or rv32imac: the ISA string must stay
 * exactly that (picolibc's multilib selection, see scripts/build-firmware.sh), so each CSR
 * instruction enables Zicsr for itself.
 */
#ifndef CSR_H
#define CSR_H

#include <stdint.h>

#define CSR_ASM(insn) ".option push\n.option arch, +zicsr\n" insn "\n.option pop"
#define CSRR(csr)                                                             \
    ({                                                                        \
        uint32_t v_;                                                          \
        __asm__ volatile(CSR_ASM("csrr %0, " #csr) : "=r"(v_) : : "memory");  \
        v_;                                                                   \
    })
#define CSRW(csr, v) __asm__ volatile(CSR_ASM("csrw " #csr ", %0") : : "r"(v) : "memory")
#define CSRS(csr, v) __asm__ volatile(CSR_ASM("csrs " #csr ", %0") : : "r"(v) : "memory")
#define CSRC(csr, v) __asm__ volatile(CSR_ASM("csrc " #csr ", %0") : : "r"(v) : "memory")

#define MSTATUS_MIE (1u << 3)
#define MSTATUS_MPIE (1u << 7)

#endif

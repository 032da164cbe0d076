//! Instruction decoding: a raw 32-bit word becomes a compact [`Insn`] once, and the
//! interpreter only ever sees `Insn`s (see [`super::decode_cache`]).
//!
//! `raki` does the decoding. Around it sits a thin layer for what `raki` 1.3 does not do or
//! does too leniently for a simulator that must trap on every reserved encoding:
//!
//! * MISC-MEM: `fence.i` and the Zicbom `cbo.clean/flush/inval` are decoded here;
//! * OP: `raki` accepts any `funct7` for `sll/slt/sltu/xor/or/and`; only the ratified values are
//!   accepted here;
//! * JALR: `raki` ignores `funct3`, which must be zero;
//! * CSR: `raki` turns `csrrs rd, cycle, x0` into `rdcycle` even when `rs1 != 0`; CSR
//!   instructions are rebuilt from the raw word so the CSR file can apply the real rules;
//! * everything outside RV32IM + Zicsr + Zifencei + Zicbom (A, C, S-mode, …) is illegal.

use raki::{BaseIOpcode, Decode, Isa, MOpcode, OpcodeKind, PrivOpcode, ZifenceiOpcode};

/// The operations the hart executes. `Illegal` is decoded like any other operation so that
/// the trap happens when (and only if) the word is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
#[rustfmt::skip]
pub enum Op {
    Lui, Auipc, Jal, Jalr,
    Beq, Bne, Blt, Bge, Bltu, Bgeu,
    Lb, Lh, Lw, Lbu, Lhu, Sb, Sh, Sw,
    Addi, Slti, Sltiu, Xori, Ori, Andi, Slli, Srli, Srai,
    Add, Sub, Sll, Slt, Sltu, Xor, Srl, Sra, Or, And,
    Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu,
    Fence, FenceI, Ecall, Ebreak, Mret, Wfi,
    /// CSR operations: `imm` holds the CSR number, `rs1` the source register or the 5-bit
    /// immediate (`*i` forms).
    Csrrw, Csrrs, Csrrc, Csrrwi, Csrrsi, Csrrci,
    CboClean, CboFlush, CboInval,
    Illegal,
}

/// A decoded instruction: 8 bytes, so the decoded-instruction cache stays dense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    /// Sign-extended immediate; for `lui`/`auipc` already shifted into bits 31..12.
    pub imm: i32,
}

impl Insn {
    const ILLEGAL: Insn = Insn { op: Op::Illegal, rd: 0, rs1: 0, rs2: 0, imm: 0 };

    fn new(op: Op, rd: usize, rs1: usize, rs2: usize, imm: i32) -> Insn {
        Insn { op, rd: rd as u8, rs1: rs1 as u8, rs2: rs2 as u8, imm }
    }
}

const OPCODE_MISC_MEM: u32 = 0b000_1111;
const OPCODE_OP: u32 = 0b011_0011;
const OPCODE_JALR: u32 = 0b110_0111;
const OPCODE_SYSTEM: u32 = 0b111_0011;

fn rd(raw: u32) -> usize {
    ((raw >> 7) & 31) as usize
}
fn rs1(raw: u32) -> usize {
    ((raw >> 15) & 31) as usize
}
fn funct3(raw: u32) -> u32 {
    (raw >> 12) & 7
}

/// Decodes one 32-bit instruction word.
pub fn decode(raw: u32) -> Insn {
    if raw & 3 != 3 {
        return Insn::ILLEGAL; // 16-bit (C extension) encodings: not implemented
    }
    match raw & 0x7f {
        OPCODE_MISC_MEM => decode_misc_mem(raw),
        OPCODE_OP if !op_funct7_is_ratified(raw) => Insn::ILLEGAL,
        OPCODE_JALR if funct3(raw) != 0 => Insn::ILLEGAL,
        OPCODE_SYSTEM if funct3(raw) != 0 && funct3(raw) != 4 => decode_csr(raw),
        _ => decode_with_raki(raw),
    }
}

/// In the OP major opcode, `funct7` is 0 (base), 1 (M) or 0x20 (only `sub` and `sra`).
fn op_funct7_is_ratified(raw: u32) -> bool {
    match raw >> 25 {
        0x00 | 0x01 => true,
        0x20 => matches!(funct3(raw), 0b000 | 0b101),
        _ => false,
    }
}

fn decode_misc_mem(raw: u32) -> Insn {
    match funct3(raw) {
        0b000 => decode_with_raki(raw), // fence
        // fence.i: the imm/rs1/rd fields are reserved and ignored, as the spec allows.
        0b001 => Insn::new(Op::FenceI, 0, 0, 0, 0),
        0b010 if rd(raw) == 0 => {
            let op = match raw >> 20 {
                0 => Op::CboInval,
                1 => Op::CboClean,
                2 => Op::CboFlush,
                _ => return Insn::ILLEGAL, // cbo.zero (Zicboz) and reserved
            };
            Insn::new(op, 0, rs1(raw), 0, 0)
        }
        _ => Insn::ILLEGAL,
    }
}

fn decode_csr(raw: u32) -> Insn {
    let op = match funct3(raw) {
        0b001 => Op::Csrrw,
        0b010 => Op::Csrrs,
        0b011 => Op::Csrrc,
        0b101 => Op::Csrrwi,
        0b110 => Op::Csrrsi,
        0b111 => Op::Csrrci,
        _ => return Insn::ILLEGAL,
    };
    // Let raki confirm it is a CSR instruction it knows; the fields come from the word.
    match raw.decode(Isa::Rv32) {
        Ok(_) => Insn::new(op, rd(raw), rs1(raw), 0, (raw >> 20) as i32),
        Err(_) => Insn::ILLEGAL,
    }
}

fn decode_with_raki(raw: u32) -> Insn {
    let Ok(i) = raw.decode(Isa::Rv32) else {
        return Insn::ILLEGAL;
    };
    let op = match i.opc {
        OpcodeKind::BaseI(b) => match b {
            BaseIOpcode::LUI => Op::Lui,
            BaseIOpcode::AUIPC => Op::Auipc,
            BaseIOpcode::JAL => Op::Jal,
            BaseIOpcode::JALR => Op::Jalr,
            BaseIOpcode::BEQ => Op::Beq,
            BaseIOpcode::BNE => Op::Bne,
            BaseIOpcode::BLT => Op::Blt,
            BaseIOpcode::BGE => Op::Bge,
            BaseIOpcode::BLTU => Op::Bltu,
            BaseIOpcode::BGEU => Op::Bgeu,
            BaseIOpcode::LB => Op::Lb,
            BaseIOpcode::LH => Op::Lh,
            BaseIOpcode::LW => Op::Lw,
            BaseIOpcode::LBU => Op::Lbu,
            BaseIOpcode::LHU => Op::Lhu,
            BaseIOpcode::SB => Op::Sb,
            BaseIOpcode::SH => Op::Sh,
            BaseIOpcode::SW => Op::Sw,
            BaseIOpcode::ADDI => Op::Addi,
            BaseIOpcode::SLTI => Op::Slti,
            BaseIOpcode::SLTIU => Op::Sltiu,
            BaseIOpcode::XORI => Op::Xori,
            BaseIOpcode::ORI => Op::Ori,
            BaseIOpcode::ANDI => Op::Andi,
            BaseIOpcode::SLLI => Op::Slli,
            BaseIOpcode::SRLI => Op::Srli,
            BaseIOpcode::SRAI => Op::Srai,
            BaseIOpcode::ADD => Op::Add,
            BaseIOpcode::SUB => Op::Sub,
            BaseIOpcode::SLL => Op::Sll,
            BaseIOpcode::SLT => Op::Slt,
            BaseIOpcode::SLTU => Op::Sltu,
            BaseIOpcode::XOR => Op::Xor,
            BaseIOpcode::SRL => Op::Srl,
            BaseIOpcode::SRA => Op::Sra,
            BaseIOpcode::OR => Op::Or,
            BaseIOpcode::AND => Op::And,
            // raki accepts any rd/rs1 here; the privileged encodings are exact words.
            BaseIOpcode::ECALL if raw == 0x0000_0073 => Op::Ecall,
            BaseIOpcode::EBREAK if raw == 0x0010_0073 => Op::Ebreak,
            _ => Op::Illegal,
        },
        OpcodeKind::M(m) => match m {
            MOpcode::MUL => Op::Mul,
            MOpcode::MULH => Op::Mulh,
            MOpcode::MULHSU => Op::Mulhsu,
            MOpcode::MULHU => Op::Mulhu,
            MOpcode::DIV => Op::Div,
            MOpcode::DIVU => Op::Divu,
            MOpcode::REM => Op::Rem,
            MOpcode::REMU => Op::Remu,
            _ => Op::Illegal,
        },
        OpcodeKind::Zifencei(ZifenceiOpcode::FENCE) => Op::Fence,
        // No S-mode: sret and sfence.vma are illegal.
        OpcodeKind::Priv(PrivOpcode::MRET) => Op::Mret,
        OpcodeKind::Priv(PrivOpcode::WFI) => Op::Wfi,
        _ => Op::Illegal,
    };
    if op == Op::Illegal {
        return Insn::ILLEGAL;
    }
    let imm = match op {
        Op::Lui | Op::Auipc => i.imm.unwrap_or(0) << 12,
        Op::Fence => 0,
        _ => i.imm.unwrap_or(0),
    };
    Insn::new(op, i.rd.unwrap_or(0), i.rs1.unwrap_or(0), i.rs2.unwrap_or(0), imm)
}

/// Assembly text of a raw instruction word, for traces and error messages, in the GNU
/// assembler's syntax. (raki's `Display` prints loads, stores and branches with their
/// operands in the wrong places, so the text is built from the decoded [`Insn`].)
/// The ISA extension an instruction mxpsim does not decode belongs to, when its encoding
/// says (the major opcode; 16-bit encodings are C's): for a note that names it.
pub fn unimplemented_extension(raw: u32) -> Option<&'static str> {
    if raw & 0b11 != 0b11 {
        return Some("C (compressed instructions)");
    }
    let width = (raw >> 12) & 0b111;
    match raw & 0x7f {
        0x2f => Some("A (atomic instructions)"),
        // LOAD-FP / STORE-FP: the widths 1-4 are F/D/Q's, the others V's.
        0x07 | 0x27 if (1..=4).contains(&width) => Some("F/D (floating point)"),
        0x07 | 0x27 | 0x57 => Some("V (vectors)"),
        0x43 | 0x47 | 0x4b | 0x4f | 0x53 => Some("F/D (floating point)"),
        _ => None,
    }
}

pub fn disassemble(raw: u32) -> String {
    let i = decode(raw);
    let x = |r: u8| REG_NAMES[r as usize];
    let m = mnemonic(i.op);
    match i.op {
        Op::Illegal => format!("unknown 0x{raw:08x}"),
        Op::Fence | Op::FenceI | Op::Ecall | Op::Ebreak | Op::Mret | Op::Wfi => m.to_string(),
        Op::Lui | Op::Auipc => format!("{m} {}, 0x{:x}", x(i.rd), (i.imm as u32) >> 12),
        Op::Jal => format!("{m} {}, {}", x(i.rd), i.imm),
        Op::Jalr | Op::Lb | Op::Lh | Op::Lw | Op::Lbu | Op::Lhu => {
            format!("{m} {}, {}({})", x(i.rd), i.imm, x(i.rs1))
        }
        Op::Sb | Op::Sh | Op::Sw => format!("{m} {}, {}({})", x(i.rs2), i.imm, x(i.rs1)),
        Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
            format!("{m} {}, {}, {}", x(i.rs1), x(i.rs2), i.imm)
        }
        Op::Addi | Op::Slti | Op::Sltiu | Op::Xori | Op::Ori | Op::Andi | Op::Slli | Op::Srli | Op::Srai => {
            format!("{m} {}, {}, {}", x(i.rd), x(i.rs1), i.imm)
        }
        Op::Csrrw | Op::Csrrs | Op::Csrrc => {
            format!("{m} {}, {}, {}", x(i.rd), csr_name(i.imm as u16), x(i.rs1))
        }
        Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
            format!("{m} {}, {}, {}", x(i.rd), csr_name(i.imm as u16), i.rs1)
        }
        Op::CboClean | Op::CboFlush | Op::CboInval => format!("{m} ({})", x(i.rs1)),
        _ => format!("{m} {}, {}, {}", x(i.rd), x(i.rs1), x(i.rs2)),
    }
}

#[rustfmt::skip]
fn mnemonic(op: Op) -> &'static str {
    use Op::*;
    match op {
        Lui => "lui", Auipc => "auipc", Jal => "jal", Jalr => "jalr",
        Beq => "beq", Bne => "bne", Blt => "blt", Bge => "bge", Bltu => "bltu", Bgeu => "bgeu",
        Lb => "lb", Lh => "lh", Lw => "lw", Lbu => "lbu", Lhu => "lhu",
        Sb => "sb", Sh => "sh", Sw => "sw",
        Addi => "addi", Slti => "slti", Sltiu => "sltiu", Xori => "xori", Ori => "ori",
        Andi => "andi", Slli => "slli", Srli => "srli", Srai => "srai",
        Add => "add", Sub => "sub", Sll => "sll", Slt => "slt", Sltu => "sltu", Xor => "xor",
        Srl => "srl", Sra => "sra", Or => "or", And => "and",
        Mul => "mul", Mulh => "mulh", Mulhsu => "mulhsu", Mulhu => "mulhu",
        Div => "div", Divu => "divu", Rem => "rem", Remu => "remu",
        Fence => "fence", FenceI => "fence.i", Ecall => "ecall", Ebreak => "ebreak",
        Mret => "mret", Wfi => "wfi",
        Csrrw => "csrrw", Csrrs => "csrrs", Csrrc => "csrrc",
        Csrrwi => "csrrwi", Csrrsi => "csrrsi", Csrrci => "csrrci",
        CboClean => "cbo.clean", CboFlush => "cbo.flush", CboInval => "cbo.inval",
        Illegal => "unknown",
    }
}

fn csr_name(num: u16) -> String {
    super::csr::name(num).map_or_else(|| format!("0x{num:03x}"), str::to_string)
}

/// ABI names of the integer registers.
pub const REG_NAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2",
    "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
];

#[cfg(test)]
mod extension_tests {
    use super::*;

    #[test]
    fn unimplemented_extensions_are_named_by_their_opcodes() {
        let name = |raw| unimplemented_extension(raw).map(|e| e.split(' ').next().unwrap());
        assert_eq!(name(0x0005_2007), Some("F/D"), "flw f0, 0(a0)");
        assert_eq!(name(0x00b5_7553), Some("F/D"), "fadd.s fa0, fa0, fa1");
        assert_eq!(name(0x00b6_252f), Some("A"), "amoadd.w a0, a1, (a2)");
        assert_eq!(name(0x0000_0001), Some("C"), "c.nop");
        assert_eq!(name(0x0231_00d7), Some("V"), "vadd.vv");
        assert_eq!(name(0x0205_6087), Some("V"), "vle32.v");
        assert_eq!(name(0x0000_0013), None, "addi: RV32I");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(raw: u32) -> Insn {
        decode(raw)
    }

    #[test]
    fn decodes_immediates_per_format() {
        // addi a0, a1, -1
        assert_eq!(d(0xfff5_8513), Insn { op: Op::Addi, rd: 10, rs1: 11, rs2: 0, imm: -1 });
        // lui a0, 0x80000
        assert_eq!(d(0x8000_0537), Insn { op: Op::Lui, rd: 10, rs1: 0, rs2: 0, imm: i32::MIN });
        // sw a1, -4(sp)
        let sw = d(0xfeb1_2e23);
        assert_eq!((sw.op, sw.rs1, sw.rs2, sw.imm), (Op::Sw, 2, 11, -4));
        // beq a0, a1, -8
        let b = d(0xfeb5_0ce3);
        assert_eq!((b.op, b.rs1, b.rs2, b.imm), (Op::Beq, 10, 11, -8));
        // jal ra, +2048
        let j = d(0x0010_00ef);
        assert_eq!((j.op, j.rd, j.imm), (Op::Jal, 1, 2048));
        // srai a0, a0, 31
        let s = d(0x41f5_5513);
        assert_eq!((s.op, s.imm), (Op::Srai, 31));
    }

    #[test]
    fn decodes_system_and_extension_instructions() {
        assert_eq!(d(0x0000_0073).op, Op::Ecall);
        assert_eq!(d(0x0010_0073).op, Op::Ebreak);
        assert_eq!(d(0x3020_0073).op, Op::Mret);
        assert_eq!(d(0x1050_0073).op, Op::Wfi);
        assert_eq!(d(0x0000_100f).op, Op::FenceI);
        assert_eq!(d(0x0ff0_000f).op, Op::Fence);
        // cbo.inval/clean/flush (a0)
        assert_eq!(d(0x0005_200f), Insn { op: Op::CboInval, rd: 0, rs1: 10, rs2: 0, imm: 0 });
        assert_eq!(d(0x0015_200f).op, Op::CboClean);
        assert_eq!(d(0x0025_200f).op, Op::CboFlush);
        // csrrs a0, mcycle... rdcycle a0 = csrrs a0, cycle, zero
        assert_eq!(d(0xc000_2573), Insn { op: Op::Csrrs, rd: 10, rs1: 0, rs2: 0, imm: 0xc00 });
        // csrrs a0, cycle, a1: kept as a CSR op with rs1 = a1 (the CSR file rejects the write)
        assert_eq!(d(0xc005_a573), Insn { op: Op::Csrrs, rd: 10, rs1: 11, rs2: 0, imm: 0xc00 });
        // csrrwi zero, mscratch, 5
        assert_eq!(d(0x3402_d073), Insn { op: Op::Csrrwi, rd: 0, rs1: 5, rs2: 0, imm: 0x340 });
        // mul, mulhsu, remu
        assert_eq!(d(0x02b5_0533).op, Op::Mul);
        assert_eq!(d(0x02b5_2533).op, Op::Mulhsu);
        assert_eq!(d(0x02b5_7533).op, Op::Remu);
    }

    #[test]
    fn rejects_reserved_and_foreign_encodings() {
        for raw in [
            0x0000_0000, // all zeros (defined illegal)
            0xffff_ffff, // all ones
            0x0000_4505, // 16-bit c.li
            0x04b5_1533, // sll with funct7 = 0b0000010
            0x40b5_1533, // sll with funct7 = 0b0100000
            0x40b5_4533, // xor with funct7 = 0b0100000 (only sub/sra take it)
            0x0005_1567, // jalr with funct3 = 1
            0x1020_0073, // sret (no S-mode)
            0x1200_0073, // sfence.vma
            0x0010_0173, // ebreak with rd != 0
            0x0025_302f, // amoadd? (A extension: opcode 0x2f)
            0x0045_200f, // cbo.zero (Zicboz not implemented)
            0x0005_3503, // ld (RV64 only)
            0x0215_1513, // slli with shamt[5] set
            0x0000_700f, // MISC-MEM funct3 = 7
        ] {
            assert_eq!(d(raw).op, Op::Illegal, "0x{raw:08x} should be illegal");
        }
    }

    #[test]
    fn disassembles_for_traces() {
        assert_eq!(disassemble(0xfff5_8513), "addi a0, a1, -1");
        assert_eq!(disassemble(0x0000_100f), "fence.i");
        assert_eq!(disassemble(0x0025_200f), "cbo.flush (a0)");
        assert_eq!(disassemble(0x3400_1573), "csrrw a0, mscratch, zero");
        assert_eq!(disassemble(0x0000_0000), "unknown 0x00000000");
        assert_eq!(disassemble(0xfeb1_2e23), "sw a1, -4(sp)");
        assert_eq!(disassemble(0x0085_2503), "lw a0, 8(a0)");
        assert_eq!(disassemble(0xfeb5_0ce3), "beq a0, a1, -8");
        assert_eq!(disassemble(0x8000_0537), "lui a0, 0x80000");
        assert_eq!(disassemble(0x02b5_3533), "mulhu a0, a0, a1");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        /// Any word decodes (and disassembles) without panicking, and an instruction decoded
        /// as legal always has registers in range.
        #[test]
        fn any_word_decodes_without_panic(raw in any::<u32>()) {
            let insn = decode(raw);
            prop_assert!(insn.rd < 32 && insn.rs1 < 32 && insn.rs2 < 32);
            let _ = disassemble(raw);
        }
    }
}

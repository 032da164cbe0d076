//! Instruction decoding: a raw instruction (a 32-bit word, or a 16-bit compressed one)
//! becomes a compact [`Insn`] once, and the interpreter only ever sees `Insn`s (see
//! [`super::block_cache`]).
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
//! * A: `lr.w` with a non-zero `rs2` field is reserved;
//! * C: a 16-bit instruction decodes to the [`Insn`] of the 32-bit instruction it expands to
//!   (the interpreter never sees the difference but its length, [`Insn::size`]).
//!   raki leaves implicit registers (`sp`, `ra`, `zero`) unset and accepts the encodings the
//!   spec reserves (zero immediates, `rd = 0`, RV32's `shamt[5]`), which are rejected here;
//! * everything outside RV32IMAC + Zicsr + Zifencei + Zicbom (F, D, V, S-mode, …) is illegal.

use super::isa::{Format, Op};
use raki::{AOpcode, BaseIOpcode, COpcode, Decode, Isa, MOpcode, OpcodeKind, PrivOpcode, ZifenceiOpcode};

/// A decoded instruction: 8 bytes, so the decoded blocks stay dense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub op: Op,
    /// `rd` in bits 4..0; bit 7 set for a compressed (2-byte) instruction ([`Insn::rd`],
    /// [`Insn::size`]). Packed so that an `Insn` stays 8 bytes: the interpreter's loop keeps
    /// it in registers (a 12-byte one went through the stack and cost a third of its speed).
    /// Register writes mask the index anyway.
    pub(super) rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    /// Sign-extended immediate; for `lui`/`auipc` already shifted into bits 31..12; for
    /// an illegal instruction its word (what `mtval` reports).
    pub imm: i32,
}

impl Insn {
    const ILLEGAL: Insn = Insn { op: Op::Illegal, rd: 0, rs1: 0, rs2: 0, imm: 0 };
    const COMPRESSED: u8 = 0x80;

    fn new(op: Op, rd: usize, rs1: usize, rs2: usize, imm: i32) -> Insn {
        Insn { op, rd: rd as u8, rs1: rs1 as u8, rs2: rs2 as u8, imm }
    }

    /// The destination register.
    #[inline(always)]
    pub fn rd(self) -> u8 {
        self.rd & 31
    }

    /// The instruction's length in bytes: 4, or 2 for a compressed one.
    #[inline(always)]
    pub fn size(self) -> u32 {
        if self.rd & Self::COMPRESSED != 0 {
            2
        } else {
            4
        }
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

/// The length in bytes of the instruction whose first 16-bit parcel is `parcel`: 4 when
/// its two low bits are set, else 2 (C). (Longer encodings do not exist in RV32IMAC: their
/// first parcel reads as a 32-bit instruction that decodes as illegal.)
#[inline(always)]
pub const fn length(parcel: u32) -> u32 {
    if parcel & 3 == 3 {
        4
    } else {
        2
    }
}

/// The instruction at `pc`, read through `peek` (memory as the hart fetches it; false where
/// nothing can be read): its 16 bits for a compressed one, else its 32-bit word.
pub fn read_instruction(peek: impl Fn(u32, &mut [u8]) -> bool, pc: u32) -> Option<u32> {
    let mut parcel = [0; 2];
    if !peek(pc, &mut parcel) {
        return None;
    }
    let low = u16::from_le_bytes(parcel) as u32;
    if length(low) == 2 {
        return Some(low);
    }
    let mut word = [0; 4];
    peek(pc, &mut word).then(|| u32::from_le_bytes(word))
}

/// Decodes one instruction: a 32-bit word, or a 16-bit compressed one in the low half of
/// `raw` (its upper half zero).
pub fn decode(raw: u32) -> Insn {
    let mut insn = decode_fields(raw);
    if length(raw) == 2 {
        insn.rd |= Insn::COMPRESSED;
    }
    if insn.op == Op::Illegal {
        insn.imm = raw as i32;
    }
    insn
}

fn decode_fields(raw: u32) -> Insn {
    if raw & 3 != 3 {
        return match u16::try_from(raw) {
            Ok(parcel) => decode_compressed(parcel),
            Err(_) => Insn::ILLEGAL,
        };
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
        OpcodeKind::A(a) => match a {
            // lr.w's rs2 field must be zero.
            AOpcode::LR_W if (raw >> 20) & 31 == 0 => Op::LrW,
            AOpcode::SC_W => Op::ScW,
            AOpcode::AMOSWAP_W => Op::AmoswapW,
            AOpcode::AMOADD_W => Op::AmoaddW,
            AOpcode::AMOXOR_W => Op::AmoxorW,
            AOpcode::AMOAND_W => Op::AmoandW,
            AOpcode::AMOOR_W => Op::AmoorW,
            AOpcode::AMOMIN_W => Op::AmominW,
            AOpcode::AMOMAX_W => Op::AmomaxW,
            AOpcode::AMOMINU_W => Op::AmominuW,
            AOpcode::AMOMAXU_W => Op::AmomaxuW,
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
    let imm = match op.format() {
        Format::Upper => i.imm.unwrap_or(0) << 12,
        // fence's sets and the A extension's aq/rl bits order nothing on one hart.
        Format::Bare | Format::LoadReserved | Format::Atomic => 0,
        _ => i.imm.unwrap_or(0),
    };
    Insn::new(op, i.rd.unwrap_or(0), i.rs1.unwrap_or(0), i.rs2.unwrap_or(0), imm)
}

/// The ABI numbers of the registers C instructions name implicitly.
const ZERO: usize = 0;
const RA: usize = 1;
const SP: usize = 2;

/// Decodes a 16-bit instruction into the instruction it expands to (RV32C).
fn decode_compressed(parcel: u16) -> Insn {
    let Ok(i) = parcel.decode(Isa::Rv32) else {
        return Insn::ILLEGAL;
    };
    let OpcodeKind::C(c) = i.opc else {
        return Insn::ILLEGAL; // Zicfiss's c.sspush/c.sspopchk: reserved c.lui encodings in RV32C
    };
    let (rd, rs1, rs2) = (i.rd.unwrap_or(ZERO), i.rs1.unwrap_or(ZERO), i.rs2.unwrap_or(ZERO));
    let imm = i.imm.unwrap_or(0);
    // RV32's shifts by 32 or more (shamt[5], bit 12) are reserved.
    let shamt_ok = parcel & 0x1000 == 0;
    let (op, rd, rs1, rs2) = match c {
        COpcode::ADDI4SPN if imm != 0 => (Op::Addi, rd, SP, ZERO),
        COpcode::LW => (Op::Lw, rd, rs1, ZERO),
        COpcode::SW => (Op::Sw, ZERO, rs1, rs2),
        COpcode::NOP => (Op::Addi, ZERO, ZERO, ZERO),
        COpcode::ADDI => (Op::Addi, rd, rd, ZERO),
        COpcode::JAL => (Op::Jal, RA, ZERO, ZERO),
        COpcode::LI => (Op::Addi, rd, ZERO, ZERO),
        COpcode::ADDI16SP if imm != 0 => (Op::Addi, SP, SP, ZERO),
        COpcode::LUI if imm != 0 => (Op::Lui, rd, ZERO, ZERO),
        COpcode::SRLI if shamt_ok => (Op::Srli, rd, rd, ZERO),
        COpcode::SRAI if shamt_ok => (Op::Srai, rd, rd, ZERO),
        COpcode::ANDI => (Op::Andi, rd, rd, ZERO),
        COpcode::SUB => (Op::Sub, rd, rd, rs2),
        COpcode::XOR => (Op::Xor, rd, rd, rs2),
        COpcode::OR => (Op::Or, rd, rd, rs2),
        COpcode::AND => (Op::And, rd, rd, rs2),
        COpcode::J => (Op::Jal, ZERO, ZERO, ZERO),
        COpcode::BEQZ => (Op::Beq, ZERO, rs1, ZERO),
        COpcode::BNEZ => (Op::Bne, ZERO, rs1, ZERO),
        COpcode::SLLI if shamt_ok => (Op::Slli, rd, rd, ZERO),
        COpcode::LWSP if rd != ZERO => (Op::Lw, rd, SP, ZERO),
        COpcode::JR if rs1 != ZERO => (Op::Jalr, ZERO, rs1, ZERO),
        COpcode::MV => (Op::Add, rd, ZERO, rs2),
        // raki reads every bit-12, rd-0 parcel as c.ebreak; with rs2 != 0 it is `c.add x0, rs2`,
        // a HINT (no effect).
        COpcode::EBREAK if parcel == 0x9002 => (Op::Ebreak, ZERO, ZERO, ZERO),
        COpcode::EBREAK => (Op::Add, ZERO, ZERO, (parcel as usize >> 2) & 31),
        COpcode::JALR => (Op::Jalr, RA, rs1, ZERO),
        COpcode::ADD => (Op::Add, rd, rd, rs2),
        COpcode::SWSP => (Op::Sw, ZERO, SP, rs2),
        _ => return Insn::ILLEGAL,
    };
    let imm = match op {
        Op::Jalr | Op::Ebreak => 0,
        _ => imm,
    };
    Insn::new(op, rd, rs1, rs2, imm)
}

/// The ISA extension an illegal instruction belongs to, when its encoding says (the major
/// opcode, or the compressed floating-point loads and stores): for a note that names it.
pub fn unimplemented_extension(raw: u32) -> Option<&'static str> {
    const FLOAT: Option<&str> = Some("F/D (floating point)");
    if raw & 0b11 != 0b11 {
        // C.FLD/C.FLW/C.FSD/C.FSW and their sp-relative forms: funct3 odd in quadrants 0 and 2.
        let quadrant = raw & 0b11;
        let odd_funct3 = (raw >> 13) & 1 == 1;
        return if quadrant != 0b01 && odd_funct3 { FLOAT } else { None };
    }
    let width = (raw >> 12) & 0b111;
    match raw & 0x7f {
        0x2f if width == 3 => Some("RV64A (doubleword atomics)"),
        // LOAD-FP / STORE-FP: the widths 1-4 are F/D/Q's, the others V's.
        0x07 | 0x27 if (1..=4).contains(&width) => FLOAT,
        0x07 | 0x27 | 0x57 => Some("V (vectors)"),
        0x43 | 0x47 | 0x4b | 0x4f | 0x53 => FLOAT,
        _ => None,
    }
}

/// Assembly text of an instruction (see [`decode`]), for traces and error messages, in the
/// GNU assembler's syntax without aliases. A compressed instruction is shown as the
/// instruction it expands to.
pub fn disassemble(raw: u32) -> String {
    let i = decode(raw);
    let x = |r: u8| REG_NAMES[r as usize];
    let m = i.op.mnemonic();
    if i.op == Op::Illegal {
        return format!("unknown 0x{raw:08x}");
    }
    match i.op.format() {
        Format::Bare => m.to_string(),
        Format::Upper => format!("{m} {}, 0x{:x}", x(i.rd()), (i.imm as u32) >> 12),
        Format::Jump => format!("{m} {}, {}", x(i.rd()), i.imm),
        Format::RegOffset => format!("{m} {}, {}({})", x(i.rd()), i.imm, x(i.rs1)),
        Format::Store => format!("{m} {}, {}({})", x(i.rs2), i.imm, x(i.rs1)),
        Format::Branch => format!("{m} {}, {}, {}", x(i.rs1), x(i.rs2), i.imm),
        Format::RegImm => format!("{m} {}, {}, {}", x(i.rd()), x(i.rs1), i.imm),
        Format::RegReg => format!("{m} {}, {}, {}", x(i.rd()), x(i.rs1), x(i.rs2)),
        Format::Csr => format!("{m} {}, {}, {}", x(i.rd()), csr_name(i.imm as u16), x(i.rs1)),
        Format::CsrImm => format!("{m} {}, {}, {}", x(i.rd()), csr_name(i.imm as u16), i.rs1),
        Format::LoadReserved => format!("{m} {}, ({})", x(i.rd()), x(i.rs1)),
        Format::Atomic => format!("{m} {}, {}, ({})", x(i.rd()), x(i.rs2), x(i.rs1)),
        Format::CacheBlock => format!("{m} ({})", x(i.rs1)),
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
        assert_eq!(name(0x00b6_352f), Some("RV64A"), "amoadd.d a0, a1, (a2)");
        assert_eq!(name(0x00b6_252f), None, "amoadd.w: implemented");
        assert_eq!(name(0x2188), Some("F/D"), "c.fld fa0, 0(a1)");
        assert_eq!(name(0x6188), Some("F/D"), "c.flw fa0, 0(a1)");
        assert_eq!(name(0x2502), Some("F/D"), "c.fldsp fa0, 0(sp)");
        assert_eq!(name(0xe02a), Some("F/D"), "c.fswsp fa0, 0(sp)");
        assert_eq!(name(0x0000_0001), None, "c.nop: implemented");
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
            0x0001_4505, // a 16-bit c.li with garbage in the upper half
            0x1055_a52f, // lr.w with rs2 = a0
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
    fn every_operation_of_the_table_decodes_from_its_example() {
        for &op in Op::ALL {
            let insn = decode(op.example());
            assert_eq!(insn.op, op, "example 0x{:08x} of {op:?}", op.example());
            assert!(!disassemble(op.example()).starts_with("unknown"));
        }
        assert_eq!(Op::COUNT, Op::Illegal as usize + 1);
    }

    /// Each compressed instruction next to the 32-bit instruction it expands to, both encoded
    /// by the GNU assembler (binutils 2.40, `-march=rv32imac`), covering every RV32C
    /// instruction and the extremes of its immediate.
    #[rustfmt::skip]
    const COMPRESSED: &[(u32, u32, &str)] = &[
        (0x0808, 0x0101_0513, "c.addi4spn a0, sp, 16"),
        (0x1fe4, 0x3fc1_0493, "c.addi4spn s1, sp, 1020"),
        (0x41c8, 0x0045_a503, "c.lw a0, 4(a1)"),
        (0x5fe0, 0x07c7_a403, "c.lw s0, 124(a5)"),
        (0xc690, 0x00c6_a423, "c.sw a2, 8(a3)"),
        (0xdfe4, 0x0697_ae23, "c.sw s1, 124(a5)"),
        (0x0001, 0x0000_0013, "c.nop"),
        (0x1501, 0xfe05_0513, "c.addi a0, -32"),
        (0x0ffd, 0x01ff_8f93, "c.addi t6, 31"),
        (0x2ffd, 0x7fe0_00ef, "c.jal .+2046"),
        (0x3001, 0x801f_f0ef, "c.jal .-2048"),
        (0x557d, 0xfff0_0513, "c.li a0, -1"),
        (0x42fd, 0x01f0_0293, "c.li t0, 31"),
        (0x7101, 0xe001_0113, "c.addi16sp sp, -512"),
        (0x617d, 0x1f01_0113, "c.addi16sp sp, 496"),
        (0x657d, 0x0001_f537, "c.lui a0, 0x1f"),
        (0x7301, 0xfffe_0337, "c.lui t1, 0xfffe0"),
        (0x817d, 0x01f5_5513, "c.srli a0, 31"),
        (0x8485, 0x4014_d493, "c.srai s1, 1"),
        (0x9b81, 0xfe07_f793, "c.andi a5, -32"),
        (0x8d0d, 0x40b5_0533, "c.sub a0, a1"),
        (0x8c3d, 0x00f4_4433, "c.xor s0, a5"),
        (0x8f55, 0x00d7_6733, "c.or a4, a3"),
        (0x8e65, 0x0096_7633, "c.and a2, s1"),
        (0xb001, 0x801f_f06f, "c.j .-2048"),
        (0xa095, 0x0640_006f, "c.j .+100"),
        (0xd101, 0xf005_00e3, "c.beqz a0, .-256"),
        (0xecfd, 0x0e04_9f63, "c.bnez s1, .+254"),
        (0x0e7e, 0x01fe_1e13, "c.slli t3, 31"),
        (0x50fe, 0x0fc1_2083, "c.lwsp ra, 252(sp)"),
        (0x8082, 0x0000_8067, "c.jr ra"),
        (0x857e, 0x01f0_0533, "c.mv a0, t6"),
        (0x9002, 0x0010_0073, "c.ebreak"),
        (0x9782, 0x0007_80e7, "c.jalr a5"),
        (0x9976, 0x01d9_0933, "c.add s2, t4"),
        (0xdffe, 0x0ff1_2e23, "c.swsp t6, 252(sp)"),
    ];

    #[test]
    fn compressed_instructions_decode_as_their_expansions() {
        for &(c, expanded, text) in COMPRESSED {
            assert_eq!(length(c), 2, "{text}");
            let e = d(expanded);
            assert_eq!(d(c), Insn { rd: e.rd | Insn::COMPRESSED, ..e }, "{text}");
            assert_eq!((d(c).size(), d(c).rd()), (2, e.rd()), "{text}");
            assert_eq!(disassemble(c), disassemble(expanded), "{text}");
        }
    }

    #[test]
    fn every_parcel_decodes_without_panic() {
        for parcel in 0..=u16::MAX {
            let insn = decode(parcel as u32);
            assert!(insn.rd() < 32 && insn.rs1 < 32 && insn.rs2 < 32);
            let _ = disassemble(parcel as u32);
        }
    }

    #[test]
    fn c_add_into_x0_is_a_hint_not_ebreak() {
        assert_eq!(d(0x9006), Insn { op: Op::Add, rd: Insn::COMPRESSED, rs1: 0, rs2: 1, imm: 0 }, "c.add x0, ra");
        assert_eq!(d(0x9002).op, Op::Ebreak);
    }

    #[test]
    fn reserved_compressed_encodings_are_illegal() {
        for (raw, what) in [
            (0x0000, "all zeros"),
            (0x0004, "c.addi4spn with a zero immediate"),
            (0x6101, "c.addi16sp with a zero immediate"),
            (0x6501, "c.lui a0, 0"),
            (0x6081, "c.lui ra, 0 (Zicfiss c.sspush in raki)"),
            (0x4002, "c.lwsp zero, 0(sp)"),
            (0x8002, "c.jr zero"),
            (0x9105, "c.srli a0, 33 (shamt[5] in RV32)"),
            (0x9505, "c.srai a0, 33"),
            (0x1502, "c.slli a0, 32"),
            (0x2188, "c.fld"),
            (0x6188, "c.flw"),
            (0x9c01, "c.subw (RV64)"),
            (0x8000, "quadrant 0, funct3 100 (reserved)"),
        ] {
            assert_eq!(d(raw).op, Op::Illegal, "0x{raw:04x}: {what}");
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
        assert_eq!(disassemble(0x1005_a52f), "lr.w a0, (a1)");
        assert_eq!(disassemble(0x18c5_a52f), "sc.w a0, a2, (a1)");
        assert_eq!(disassemble(0xe6c5_a52f), "amomaxu.w a0, a2, (a1)");
        assert_eq!(disassemble(0x41c8), "lw a0, 4(a1)");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        /// Any word decodes (and disassembles) without panicking, and an instruction decoded
        /// as legal always has registers in range.
        #[test]
        fn any_word_decodes_without_panic(raw in any::<u32>()) {
            let insn = decode(raw);
            prop_assert!(insn.rd() < 32 && insn.rs1 < 32 && insn.rs2 < 32);
            let _ = disassemble(raw);
        }

    }
}

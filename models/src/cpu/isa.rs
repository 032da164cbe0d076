//! What each instruction is, in one table: its operation, mnemonic, operand format (which
//! gives its disassembly and whether it writes `rd`), cost class, flow (whether it ends a
//! block of straight-line code), and an example encoding
//! (taken from the GNU assembler; the tests decode every one).
//!
//! The [`instructions!`] table is the only list of operations. A row must give every column
//! or the table does not compile, and the interpreter's `match` over [`Op`] has no catch-all
//! arm, so an operation added here without semantics does not compile either (the style of
//! rv32emu's `RV_INSN_LIST` and rrs's instruction visitor). Compressed (C) instructions are
//! not rows: each decodes to the operation it expands to ([`super::decode`]).

/// How an instruction's operands are written, in the GNU assembler's syntax; what the
/// disassembler prints, and whether the instruction writes `rd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `lui rd, imm20` (the immediate printed as its upper 20 bits).
    Upper,
    /// `jal rd, offset`.
    Jump,
    /// `addi rd, rs1, imm`.
    RegImm,
    /// `lw rd, imm(rs1)`, `jalr rd, imm(rs1)`.
    RegOffset,
    /// `sw rs2, imm(rs1)`.
    Store,
    /// `beq rs1, rs2, offset`.
    Branch,
    /// `add rd, rs1, rs2`.
    RegReg,
    /// `csrrw rd, csr, rs1` (the CSR number in `imm`).
    Csr,
    /// `csrrwi rd, csr, uimm` (the 5-bit immediate in the `rs1` field).
    CsrImm,
    /// `lr.w rd, (rs1)`.
    LoadReserved,
    /// `amoadd.w rd, rs2, (rs1)`, `sc.w rd, rs2, (rs1)`.
    Atomic,
    /// `cbo.clean (rs1)`.
    CacheBlock,
    /// No operands: `ecall`, `fence` (its predecessor/successor sets are not kept).
    Bare,
}

impl Format {
    /// True for formats whose instructions write `rd`.
    pub const fn writes_rd(self) -> bool {
        !matches!(self, Format::Store | Format::Branch | Format::CacheBlock | Format::Bare)
    }
}

/// The classes of the timing model ([`super::timing::CpuTiming`]): each has its own extra
/// cycles on top of the base cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostClass {
    /// One cycle (plus memory stalls, and the taken-branch penalty for branches).
    Base,
    Jump,
    Mul,
    Div,
}

/// Where execution goes after an instruction: what ends a block of straight-line code for
/// the interpreter ([`super::block_cache`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// To the next instruction (unless it traps).
    Next,
    /// Possibly elsewhere (jumps, branches, `mret`), or to code that must be fetched afresh
    /// (`fence.i`), or into the host (`ecall`, `ebreak` for semihosting, `wfi`), or to a look
    /// at the interrupts (a CSR instruction may enable one; and a block counts its
    /// instructions when it starts, which a counter read in its middle would see).
    Leave,
}

macro_rules! instructions {
    ($( $(#[$doc:meta])* $op:ident $mnemonic:literal $format:ident $cost:ident $flow:ident $example:literal; )*) => {
        /// The operations the hart executes. `Illegal` is decoded like any other operation so
        /// that the trap happens when (and only if) the word is executed.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Op {
            $( $(#[$doc])* $op, )*
            Illegal,
        }

        impl Op {
            /// Every operation but `Illegal`, in table order.
            pub const ALL: &'static [Op] = &[$(Op::$op),*];
            /// The number of operations, `Illegal` included (the size of per-operation tables).
            pub const COUNT: usize = Op::ALL.len() + 1;

            pub const fn mnemonic(self) -> &'static str {
                match self { $(Op::$op => $mnemonic,)* Op::Illegal => "unknown" }
            }

            pub const fn format(self) -> Format {
                match self { $(Op::$op => Format::$format,)* Op::Illegal => Format::Bare }
            }

            pub const fn cost_class(self) -> CostClass {
                match self { $(Op::$op => CostClass::$cost,)* Op::Illegal => CostClass::Base }
            }

            /// An illegal instruction leaves too: it traps, and the words after it may be data.
            pub const fn flow(self) -> Flow {
                match self { $(Op::$op => Flow::$flow,)* Op::Illegal => Flow::Leave }
            }

            /// True when the instruction reads or writes data memory (or operates on a cache
            /// block).
            pub const fn accesses_memory(self) -> bool {
                matches!(self.format(), Format::Store | Format::LoadReserved | Format::Atomic | Format::CacheBlock)
                    || matches!(self, Op::Lb | Op::Lh | Op::Lw | Op::Lbu | Op::Lhu)
            }

            /// True when the instruction writes `rd` (for the instruction trace).
            pub const fn writes_rd(self) -> bool {
                !matches!(self, Op::Illegal) && self.format().writes_rd()
            }

            /// One encoding of the operation (from the GNU assembler), for the tests.
            pub const fn example(self) -> u32 {
                match self { $(Op::$op => $example,)* Op::Illegal => 0 }
            }
        }
    };
}

instructions! {
    // op     mnemonic   format        cost   flow   example
    Lui       "lui"      Upper         Base   Next   0x8000_0537; // lui a0, 0x80000
    Auipc     "auipc"    Upper         Base   Next   0x0000_1517;
    Jal       "jal"      Jump          Jump   Leave  0x0010_00ef; // jal ra, 2048
    Jalr      "jalr"     RegOffset     Jump   Leave  0x0045_00e7; // jalr ra, 4(a0)
    Beq       "beq"      Branch        Base   Leave  0xfeb5_0ce3; // beq a0, a1, -8
    Bne       "bne"      Branch        Base   Leave  0xfeb5_1ce3;
    Blt       "blt"      Branch        Base   Leave  0xfeb5_4ce3;
    Bge       "bge"      Branch        Base   Leave  0xfeb5_5ce3;
    Bltu      "bltu"     Branch        Base   Leave  0xfeb5_6ce3;
    Bgeu      "bgeu"     Branch        Base   Leave  0xfeb5_7ce3;
    Lb        "lb"       RegOffset     Base   Next   0x0085_8503; // lb a0, 8(a1)
    Lh        "lh"       RegOffset     Base   Next   0x0085_9503;
    Lw        "lw"       RegOffset     Base   Next   0x0085_a503;
    Lbu       "lbu"      RegOffset     Base   Next   0x0085_c503;
    Lhu       "lhu"      RegOffset     Base   Next   0x0085_d503;
    Sb        "sb"       Store         Base   Next   0xfeb1_0e23; // sb a1, -4(sp)
    Sh        "sh"       Store         Base   Next   0xfeb1_1e23;
    Sw        "sw"       Store         Base   Next   0xfeb1_2e23;
    Addi      "addi"     RegImm        Base   Next   0xfff5_8513; // addi a0, a1, -1
    Slti      "slti"     RegImm        Base   Next   0xfff5_a513;
    Sltiu     "sltiu"    RegImm        Base   Next   0xfff5_b513;
    Xori      "xori"     RegImm        Base   Next   0xfff5_c513;
    Ori       "ori"      RegImm        Base   Next   0xfff5_e513;
    Andi      "andi"     RegImm        Base   Next   0xfff5_f513;
    Slli      "slli"     RegImm        Base   Next   0x0035_9513; // slli a0, a1, 3
    Srli      "srli"     RegImm        Base   Next   0x0035_d513;
    Srai      "srai"     RegImm        Base   Next   0x4035_d513;
    Add       "add"      RegReg        Base   Next   0x00c5_8533; // add a0, a1, a2
    Sub       "sub"      RegReg        Base   Next   0x40c5_8533;
    Sll       "sll"      RegReg        Base   Next   0x00c5_9533;
    Slt       "slt"      RegReg        Base   Next   0x00c5_a533;
    Sltu      "sltu"     RegReg        Base   Next   0x00c5_b533;
    Xor       "xor"      RegReg        Base   Next   0x00c5_c533;
    Srl       "srl"      RegReg        Base   Next   0x00c5_d533;
    Sra       "sra"      RegReg        Base   Next   0x40c5_d533;
    Or        "or"       RegReg        Base   Next   0x00c5_e533;
    And       "and"      RegReg        Base   Next   0x00c5_f533;
    Mul       "mul"      RegReg        Mul   Next   0x02c5_8533;
    Mulh      "mulh"     RegReg        Mul   Next   0x02c5_9533;
    Mulhsu    "mulhsu"   RegReg        Mul   Next   0x02c5_a533;
    Mulhu     "mulhu"    RegReg        Mul   Next   0x02c5_b533;
    Div       "div"      RegReg        Div   Next   0x02c5_c533;
    Divu      "divu"     RegReg        Div   Next   0x02c5_d533;
    Rem       "rem"      RegReg        Div   Next   0x02c5_e533;
    Remu      "remu"     RegReg        Div   Next   0x02c5_f533;
    /// The A extension: `lr.w` takes a reservation, `sc.w` stores only if it still holds.
    LrW       "lr.w"     LoadReserved  Base   Next   0x1005_a52f; // lr.w a0, (a1)
    ScW       "sc.w"     Atomic        Base   Next   0x18c5_a52f; // sc.w a0, a2, (a1)
    AmoswapW  "amoswap.w" Atomic       Base   Next   0x08c5_a52f; // amoswap.w a0, a2, (a1)
    AmoaddW   "amoadd.w" Atomic        Base   Next   0x00c5_a52f;
    AmoxorW   "amoxor.w" Atomic        Base   Next   0x20c5_a52f;
    AmoandW   "amoand.w" Atomic        Base   Next   0x60c5_a52f;
    AmoorW    "amoor.w"  Atomic        Base   Next   0x40c5_a52f;
    AmominW   "amomin.w" Atomic        Base   Next   0x80c5_a52f;
    AmomaxW   "amomax.w" Atomic        Base   Next   0xa0c5_a52f;
    AmominuW  "amominu.w" Atomic       Base   Next   0xc0c5_a52f;
    AmomaxuW  "amomaxu.w" Atomic       Base   Next   0xe6c5_a52f; // amomaxu.w.aqrl
    Fence     "fence"    Bare          Base   Next   0x0330_000f; // fence rw, rw
    FenceI    "fence.i"  Bare          Base   Leave  0x0000_100f;
    Ecall     "ecall"    Bare          Base   Leave  0x0000_0073;
    Ebreak    "ebreak"   Bare          Base   Leave  0x0010_0073;
    Mret      "mret"     Bare          Base   Leave  0x3020_0073;
    Wfi       "wfi"      Bare          Base   Leave  0x1050_0073;
    Csrrw     "csrrw"    Csr           Base   Leave  0x3405_9573; // csrrw a0, mscratch, a1
    Csrrs     "csrrs"    Csr           Base   Leave  0x3405_a573;
    Csrrc     "csrrc"    Csr           Base   Leave  0x3405_b573;
    Csrrwi    "csrrwi"   CsrImm        Base   Leave  0x3402_d573; // csrrwi a0, mscratch, 5
    Csrrsi    "csrrsi"   CsrImm        Base   Leave  0x3402_e573;
    Csrrci    "csrrci"   CsrImm        Base   Leave  0x3402_f573;
    CboClean  "cbo.clean" CacheBlock   Base   Next   0x0015_200f; // cbo.clean (a0)
    CboFlush  "cbo.flush" CacheBlock   Base   Next   0x0025_200f;
    CboInval  "cbo.inval" CacheBlock   Base   Next   0x0005_200f;
}

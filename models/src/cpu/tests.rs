//! Instruction-level tests: tiny programs assembled by hand, run on DRAM, checked against
//! the ISA manual's definitions.

use super::*;
use crate::axi::AxiConfig;
use crate::cache::config::CacheConfig;
use crate::memory_system::{MemoryMap, MemorySystem};
use crate::mxp::config::MxpConfig;

/// The hart's memory in these tests: 64 KiB of DRAM, no cache model, no events.
type Memory = MemorySystem<()>;

const BASE: u32 = 0x8000_0000;

/// A minimal assembler for the encodings the tests need.
mod asm {
    pub fn r(f7: u32, rs2: u32, rs1: u32, f3: u32, rd: u32, opc: u32) -> u32 {
        f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc
    }
    pub fn i(imm: i32, rs1: u32, f3: u32, rd: u32, opc: u32) -> u32 {
        ((imm as u32) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc
    }
    pub fn s(imm: i32, rs2: u32, rs1: u32, f3: u32) -> u32 {
        let imm = imm as u32;
        (imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (imm & 31) << 7 | 0x23
    }
    pub fn b(imm: i32, rs2: u32, rs1: u32, f3: u32) -> u32 {
        let imm = imm as u32;
        (imm >> 12 & 1) << 31
            | (imm >> 5 & 0x3f) << 25
            | rs2 << 20
            | rs1 << 15
            | f3 << 12
            | (imm >> 1 & 0xf) << 8
            | (imm >> 11 & 1) << 7
            | 0x63
    }
    pub fn jal(rd: u32, imm: i32) -> u32 {
        let imm = imm as u32;
        (imm >> 20 & 1) << 31
            | (imm >> 1 & 0x3ff) << 21
            | (imm >> 11 & 1) << 20
            | (imm >> 12 & 0xff) << 12
            | rd << 7
            | 0x6f
    }
    pub fn lui(rd: u32, imm20: u32) -> u32 {
        imm20 << 12 | rd << 7 | 0x37
    }
    pub fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
        i(imm, rs1, 0, rd, 0x13)
    }
    pub fn jalr(rd: u32, rs1: u32, imm: i32) -> u32 {
        i(imm, rs1, 0, rd, 0x67)
    }
    pub fn csrrw(rd: u32, csr: u32, rs1: u32) -> u32 {
        csr << 20 | rs1 << 15 | 1 << 12 | rd << 7 | 0x73
    }
    pub fn csrrs(rd: u32, csr: u32, rs1: u32) -> u32 {
        csr << 20 | rs1 << 15 | 2 << 12 | rd << 7 | 0x73
    }
    pub fn csrrc(rd: u32, csr: u32, rs1: u32) -> u32 {
        csr << 20 | rs1 << 15 | 3 << 12 | rd << 7 | 0x73
    }
    pub const ECALL: u32 = 0x0000_0073;
    pub const EBREAK: u32 = 0x0010_0073;
    pub const MRET: u32 = 0x3020_0073;
    pub const FENCE_I: u32 = 0x0000_100f;
    pub const NOP: u32 = 0x0000_0013;
}
use asm::*;

/// Loads `program` at `BASE` and returns the machine, ready to run.
fn machine(program: &[u32]) -> (Hart, Memory) {
    machine_with_cache(program, &CacheConfig { enabled: false, ..CacheConfig::default() })
}

/// [`machine`] with a cache model of `cache`.
fn machine_with_cache(program: &[u32], cache: &CacheConfig) -> (Hart, Memory) {
    machine_with_sink(program, cache, ())
}

/// [`machine_with_cache`] whose events go to `sink`.
fn machine_with_sink<S: crate::events::EventSink>(
    program: &[u32],
    cache: &CacheConfig,
    sink: S,
) -> (Hart, MemorySystem<S>) {
    let map = MemoryMap { dram_base: BASE, dram_size: 0x1_0000, ..MemoryMap::default() };
    let mut bus = MemorySystem::new(map, cache, AxiConfig::default(), &MxpConfig::default(), 100_000_000, sink);
    let bytes: Vec<u8> = program.iter().flat_map(|w| w.to_le_bytes()).collect();
    bus.poke(BASE, &bytes).unwrap();
    (Hart::new(BASE, &CpuTiming::default()), bus)
}

/// Runs `program` for `steps` steps with the given registers preset.
fn run(program: &[u32], regs: &[(usize, u32)], steps: u64) -> (Hart, Memory) {
    let (mut hart, mut bus) = machine(program);
    for &(r, v) in regs {
        hart.x[r] = v;
    }
    assert_eq!(hart.run(&mut bus, &mut (), steps), Exit::Budget);
    (hart, bus)
}

/// Executes one R-type instruction `a0 = a1 OP a2`.
fn r_op(f7: u32, f3: u32, a: u32, b: u32) -> u32 {
    let (hart, _) = run(&[r(f7, 12, 11, f3, 10, 0x33)], &[(11, a), (12, b)], 1);
    hart.x[10]
}

#[test]
fn base_integer_register_ops() {
    let cases: &[(u32, u32, u32, u32, u32)] = &[
        // (funct7, funct3, a, b, expected)
        (0x00, 0, 0xffff_ffff, 1, 0),                     // add wraps
        (0x20, 0, 0, 1, 0xffff_ffff),                     // sub wraps
        (0x00, 1, 1, 35, 8),                              // sll uses rs2[4:0]
        (0x00, 2, 0x8000_0000, 0, 1),                     // slt signed
        (0x00, 3, 0x8000_0000, 0, 0),                     // sltu unsigned
        (0x00, 4, 0xf0f0_f0f0, 0xff00_ff00, 0x0ff0_0ff0), // xor
        (0x00, 5, 0x8000_0000, 31, 1),                    // srl
        (0x20, 5, 0x8000_0000, 31, 0xffff_ffff),          // sra
        (0x20, 5, 0x8000_0000, 32, 0x8000_0000),          // sra by 32 = by 0
        (0x00, 6, 0xf000_0000, 0x0000_000f, 0xf000_000f), // or
        (0x00, 7, 0xf0f0_f0f0, 0xff00_ff00, 0xf000_f000), // and
    ];
    for &(f7, f3, a, b, want) in cases {
        assert_eq!(r_op(f7, f3, a, b), want, "funct7 {f7:#x} funct3 {f3} a {a:#x} b {b:#x}");
    }
}

#[test]
fn m_extension_corner_cases() {
    const MIN: u32 = 0x8000_0000;
    let cases: &[(u32, u32, u32, u32)] = &[
        // (funct3, a, b, expected)
        (0, 0xffff_ffff, 0xffff_ffff, 1),           // mul -1 * -1
        (1, 0xffff_ffff, 0xffff_ffff, 0),           // mulh -1 * -1 = 1 → high 0
        (1, MIN, MIN, 0x4000_0000),                 // mulh MIN*MIN = 2^62
        (1, MIN, 1, 0xffff_ffff),                   // mulh MIN*1 → high is -1
        (2, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff), // mulhsu -1 * (2^32-1) → high -1
        (2, 1, 0xffff_ffff, 0),                     // mulhsu 1 * (2^32-1)
        (3, 0xffff_ffff, 0xffff_ffff, 0xffff_fffe), // mulhu
        (4, 7, 0, 0xffff_ffff),                     // div by zero → -1
        (4, MIN, 0xffff_ffff, MIN),                 // div overflow → MIN
        (4, (-7i32) as u32, 2, (-3i32) as u32),     // div rounds toward zero
        (5, 7, 0, 0xffff_ffff),                     // divu by zero → all ones
        (5, 0xffff_ffff, 2, 0x7fff_ffff),           // divu
        (6, 7, 0, 7),                               // rem by zero → dividend
        (6, MIN, 0xffff_ffff, 0),                   // rem overflow → 0
        (6, (-7i32) as u32, 2, (-1i32) as u32),     // rem sign follows dividend
        (7, 7, 0, 7),                               // remu by zero → dividend
        (7, 0xffff_ffff, 10, 5),                    // remu
    ];
    for &(f3, a, b, want) in cases {
        assert_eq!(r_op(1, f3, a, b), want, "M funct3 {f3} a {a:#x} b {b:#x}");
    }
}

#[test]
fn immediates_lui_auipc_and_x0() {
    let program = [
        addi(10, 0, -1),         // a0 = -1
        i(-1, 10, 3, 11, 0x13),  // sltiu a1, a0, -1 → 0 (equal)
        i(1, 10, 2, 12, 0x13),   // slti a2, a0, 1 → 1
        lui(13, 0xfffff),        // a3 = 0xfffff000
        0x0000_0717 | (1 << 12), // auipc a4, 1 → pc + 0x1000
        addi(0, 0, 5),           // writes to x0 vanish
    ];
    let (hart, _) = run(&program, &[], 6);
    assert_eq!(hart.x[11], 0);
    assert_eq!(hart.x[12], 1);
    assert_eq!(hart.x[13], 0xffff_f000);
    assert_eq!(hart.x[14], BASE + 16 + 0x1000);
    assert_eq!(hart.x[0], 0);
}

#[test]
fn loads_sign_and_zero_extend_and_allow_misalignment() {
    let program = [
        i(1, 1, 0, 10, 0x03), // lb  a0, 1(ra)
        i(1, 1, 4, 11, 0x03), // lbu a1, 1(ra)
        i(1, 1, 1, 12, 0x03), // lh  a2, 1(ra)   (misaligned)
        i(1, 1, 5, 13, 0x03), // lhu a3, 1(ra)
        i(1, 1, 2, 14, 0x03), // lw  a4, 1(ra)   (misaligned)
        s(5, 14, 1, 2),       // sw  a4, 5(ra)   (misaligned)
        i(5, 1, 2, 15, 0x03), // lw  a5, 5(ra)
    ];
    let (mut hart, mut bus) = machine(&program);
    let data = BASE + 0x100;
    bus.poke(data, &[0x11, 0x80, 0xff, 0x22, 0x33, 0, 0, 0, 0]).unwrap();
    hart.x[1] = data;
    hart.run(&mut bus, &mut (), 7);
    assert_eq!(hart.x[10], 0xffff_ff80);
    assert_eq!(hart.x[11], 0x80);
    assert_eq!(hart.x[12], 0xffff_ff80);
    assert_eq!(hart.x[13], 0xff80);
    assert_eq!(hart.x[14], 0x3322_ff80);
    assert_eq!(hart.x[15], 0x3322_ff80);
    let mut bytes = [0; 4];
    bus.peek(data + 5, &mut bytes).unwrap();
    assert_eq!(bytes, [0x80, 0xff, 0x22, 0x33]);
}

#[test]
fn branches_and_jumps() {
    let program = [
        b(8, 11, 10, 4), // 0: blt a0, a1, +8 (-1 < 1: taken)
        addi(5, 0, 1),   // 4: skipped
        b(8, 11, 10, 6), // 8: bltu a0, a1, +8 (0xffffffff < 1: not taken)
        addi(6, 0, 1),   // 12: executed
        jal(1, 8),       // 16: ra = 20, jump to 24
        addi(7, 0, 1),   // 20: skipped
        jalr(0, 1, 0),   // 24: jump back to 20 via ra
    ];
    let (hart, _) = run(&program, &[(10, u32::MAX), (11, 1)], 6);
    assert_eq!((hart.x[5], hart.x[6], hart.x[1], hart.x[7]), (0, 1, BASE + 20, 1));
    assert_eq!(hart.pc, BASE + 24);
}

#[test]
fn a_jump_to_a_2_byte_boundary_is_fine_and_only_an_odd_pc_is_misaligned() {
    let (mut hart, mut bus) = machine(&[jalr(1, 10, 2)]);
    hart.x[10] = BASE + 0x100;
    hart.run(&mut bus, &mut (), 1);
    assert_eq!((hart.pc, hart.x[1]), (BASE + 0x102, BASE + 4));
    // Only an odd PC (an ELF entry, say) is misaligned: jumps clear bit 0 or add even offsets.
    let (mut hart, mut bus) = machine(&[NOP]);
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    hart.pc = BASE + 1;
    hart.run(&mut bus, &mut (), 1);
    assert_eq!((hart.csr.mcause, hart.csr.mtval, hart.csr.mepc), (0, BASE + 1, BASE + 1));
}

/// Loads `parcels` (16-bit halves, as the assembler lays them out) at `BASE`.
fn machine_parcels(parcels: &[u16]) -> (Hart, Memory) {
    let (hart, mut bus) = machine(&[]);
    let bytes: Vec<u8> = parcels.iter().flat_map(|p| p.to_le_bytes()).collect();
    bus.poke(BASE, &bytes).unwrap();
    (hart, bus)
}

#[test]
fn compressed_and_32_bit_instructions_mix() {
    // Assembled by GNU as (-march=rv32imac):
    //   0: c.li a0, 1          2: addi a0, a0, 2 (32-bit)     6: c.jal 0xa
    //   8: c.li a1, 7 (skipped)   a: c.mv a2, ra              c: c.ebreak
    let (mut hart, mut bus) = machine_parcels(&[0x4505, 0x0513, 0x0025, 0x2011, 0x459d, 0x8606, 0x9002]);
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    assert_eq!(hart.run(&mut bus, &mut (), 5), Exit::Budget);
    assert_eq!((hart.x[10], hart.x[11], hart.x[12]), (3, 0, BASE + 8), "c.jal links the next parcel");
    assert_eq!(hart.minstret(), 4);
    // c.ebreak is a breakpoint even between semihosting-looking words: never a call.
    assert_eq!((hart.csr.mcause, hart.csr.mepc, hart.pc), (3, BASE + 0xc, BASE + 0x40));
}

#[test]
fn a_32_bit_instruction_across_the_end_of_memory_faults_on_its_second_half() {
    let end = BASE + 0x1_0000;
    let (mut hart, mut bus) = machine(&[]);
    bus.poke(end - 2, &0x0513u16.to_le_bytes()).unwrap(); // first half of an addi
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    hart.pc = end - 2;
    hart.run(&mut bus, &mut (), 1);
    assert_eq!((hart.csr.mcause, hart.csr.mtval, hart.csr.mepc), (1, end, end - 2));
}

/// The A instructions of the tests (GNU as, -march=rv32ima): all use a0 = rd, a1 = address,
/// a2 = source, except the two `sc.w`s (a2 and a4 = rd, a3 = source).
const LR_W: u32 = 0x1005_a52f;
const SC_W_A2: u32 = 0x18d5_a62f;
const SC_W_A4: u32 = 0x18d5_a72f;
const SW_A3: u32 = 0x00d5_a023;

#[test]
fn amos_return_the_old_word_and_store_the_operation() {
    const MIN: u32 = 0x8000_0000;
    // (instruction, memory before, a2, memory after)
    let cases: &[(u32, u32, u32, u32)] = &[
        (0x08c5_a52f, 5, 9, 9),                // amoswap.w
        (0x00c5_a52f, u32::MAX, 2, 1),         // amoadd.w wraps
        (0x20c5_a52f, 0b1100, 0b1010, 0b0110), // amoxor.w
        (0x60c5_a52f, 0b1100, 0b1010, 0b1000), // amoand.w
        (0x40c5_a52f, 0b1100, 0b1010, 0b1110), // amoor.w
        (0x80c5_a52f, MIN, 1, MIN),            // amomin.w: signed
        (0xa0c5_a52f, MIN, 1, 1),              // amomax.w: signed
        (0xc0c5_a52f, MIN, 1, 1),              // amominu.w: unsigned
        (0xe0c5_a52f, MIN, 1, MIN),            // amomaxu.w: unsigned
    ];
    for &(insn, before, src, after) in cases {
        let (mut hart, mut bus) = machine(&[insn]);
        let data = BASE + 0x100;
        bus.poke(data, &before.to_le_bytes()).unwrap();
        (hart.x[11], hart.x[12]) = (data, src);
        hart.run(&mut bus, &mut (), 1);
        let mut word = [0; 4];
        bus.peek(data, &mut word).unwrap();
        assert_eq!((hart.x[10], u32::from_le_bytes(word)), (before, after), "{}", decode::disassemble(insn));
    }
}

/// Runs `program` with a1 = a word holding 5, a3 = 9; returns the hart and the word.
fn run_reservation(program: &[u32], steps: u64) -> (Hart, u32) {
    let (mut hart, mut bus) = machine(program);
    let data = BASE + 0x100;
    bus.poke(data, &5u32.to_le_bytes()).unwrap();
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    (hart.x[11], hart.x[13]) = (data, 9);
    hart.run(&mut bus, &mut (), steps);
    let mut word = [0; 4];
    bus.peek(data, &mut word).unwrap();
    (hart, u32::from_le_bytes(word))
}

#[test]
fn sc_succeeds_once_after_lr_and_fails_without_a_reservation() {
    // lr; sc (succeeds: a2 = 0); sc again (no reservation left: a4 = 1, no store).
    let (hart, word) = run_reservation(&[LR_W, SC_W_A2, SC_W_A4], 3);
    assert_eq!((hart.x[10], hart.x[12], hart.x[14], word), (5, 0, 1, 9));
    let (hart, word) = run_reservation(&[SC_W_A4], 1);
    assert_eq!((hart.x[14], word), (1, 5), "a failed sc.w does not store");
}

#[test]
fn a_store_to_the_reserved_word_or_a_trap_clears_the_reservation() {
    let (hart, _) = run_reservation(&[LR_W, SW_A3, SC_W_A2], 3);
    assert_eq!(hart.x[12], 1, "a store to the reserved word");
    // lr; ecall (trap to 0x40, where the program continues with sc.w).
    let mut program = vec![LR_W, ECALL];
    program.resize(0x40 / 4, NOP);
    program.push(SC_W_A2);
    let (hart, word) = run_reservation(&program, 3);
    assert_eq!((hart.x[12], word), (1, 5), "a trap");
}

#[test]
fn misaligned_atomics_trap_and_faults_are_store_faults() {
    // (instruction, address, mcause)
    for (insn, addr, cause) in [
        (LR_W, BASE + 0x102, 4),
        (SC_W_A2, BASE + 0x102, 6),
        (0x00c5_a52f, BASE + 0x101, 6), // amoadd.w
        (0x00c5_a52f, 0x9000_0000, 7),
        (LR_W, 0x9000_0000, 5),
    ] {
        let (mut hart, mut bus) = machine(&[LR_W, insn]);
        hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
        hart.x[11] = BASE + 0x100;
        hart.run(&mut bus, &mut (), 1);
        (hart.x[10], hart.x[11]) = (0x1234, addr);
        hart.run(&mut bus, &mut (), 1);
        assert_eq!((hart.csr.mcause, hart.csr.mtval), (cause, addr), "{}", decode::disassemble(insn));
        assert_eq!(hart.x[10], 0x1234, "rd is not written by a trapping instruction");
    }
}

#[test]
fn illegal_instruction_traps_with_the_word_in_mtval() {
    let (mut hart, mut bus) = machine(&[NOP, 0xffff_ffff]);
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    hart.run(&mut bus, &mut (), 2);
    assert_eq!((hart.csr.mcause, hart.csr.mtval, hart.csr.mepc), (2, 0xffff_ffff, BASE + 4));
    assert_eq!(hart.pc, BASE + 0x40);
    assert_eq!(hart.minstret(), 1, "a trapping instruction does not retire");
}

#[test]
fn ecall_from_user_mode_and_mret_back() {
    const USER: u32 = 0x20;
    const HANDLER: u32 = 0x40;
    let mut program = vec![
        csrrw(0, 0x305, 5), // mtvec = t0
        csrrw(0, 0x341, 6), // mepc = t1
        MRET,               // MPP = U (reset value): drop to U-mode at t1
    ];
    program.resize((USER / 4) as usize, NOP);
    program.push(ECALL);
    program.resize((HANDLER / 4) as usize, NOP);
    program.push(csrrs(11, 0x342, 0)); // a1 = mcause
    let (mut hart, mut bus) = machine(&program);
    hart.x[5] = BASE + HANDLER;
    hart.x[6] = BASE + USER;
    hart.run(&mut bus, &mut (), 3);
    assert_eq!(hart.csr.privilege, Priv::User);
    hart.run(&mut bus, &mut (), 2); // ecall traps, handler reads mcause
    assert_eq!(hart.csr.privilege, Priv::Machine);
    assert_eq!(hart.x[11], 8);
    assert_eq!(hart.csr.mepc, BASE + USER);
    assert_eq!((hart.csr.mstatus() >> 11) & 3, 0, "MPP records U-mode");
}

#[test]
fn user_mode_cannot_touch_machine_csrs_or_mret() {
    for insn in [csrrs(10, 0x340, 0), MRET] {
        let (mut hart, mut bus) = machine(&[insn]);
        hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
        hart.csr.privilege = Priv::User;
        hart.run(&mut bus, &mut (), 1);
        assert_eq!(hart.csr.mcause, 2, "{insn:#x}");
        assert_eq!(hart.csr.privilege, Priv::Machine);
    }
}

#[test]
fn retired_counts_what_ran_whatever_the_firmware_writes_to_minstret() {
    // csrw minstret, zero; an illegal instruction (trap to 0x40: NOPs); NOPs.
    let mut program = vec![csrrw(0, 0xb02, 0), 0, NOP];
    program.resize(0x40 / 4 + 4, NOP);
    let (mut hart, mut bus) = machine(&program);
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    hart.run(&mut bus, &mut (), 6);
    // 6 steps: csrw, the trap (retires nothing), 4 NOPs of the handler.
    assert_eq!((hart.retired(), hart.minstret()), (5, 4), "minstret was cleared by its own write");
}

#[test]
fn counters_count_retired_instructions() {
    let program = [NOP, NOP, csrrs(10, 0xb02, 0), csrrs(11, 0xc00, 0)];
    let (hart, _) = run(&program, &[], 4);
    assert_eq!(hart.x[10], 2, "minstret reads the count before the reading instruction");
    assert_eq!(hart.x[11], 3);
    assert_eq!(hart.minstret(), 4);
}

#[test]
fn a_trap_whose_handler_cannot_be_fetched_stops_the_hart() {
    // mtvec = 0: nothing is mapped there.
    let (mut hart, mut bus) = machine(&[0xffff_ffff]);
    let exit = hart.run(&mut bus, &mut (), 100);
    assert_eq!(
        exit,
        Exit::TrapLoop(Box::new(TrapLoop {
            first: Trap::new(Cause::IllegalInsn, 0xffff_ffff),
            first_pc: BASE,
            second: Trap::new(Cause::InsnAccessFault, 0),
            second_pc: 0,
            kind: LoopKind::Unhandled,
        }))
    );
}

/// A program whose instruction at `BASE` is illegal, with mtvec at a handler of `handler`
/// (at `BASE + 0x40`) after `body` (from `BASE + 4`).
fn trapping(body: &[u32], handler: &[u32]) -> (Hart, Memory) {
    let mut program = vec![0xffff_ffff];
    program.extend(body);
    program.resize(0x40 / 4, NOP);
    program.extend(handler);
    let (mut hart, bus) = machine(&program);
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    (hart, bus)
}

#[test]
fn a_handler_that_returns_to_the_trapping_instruction_unchanged_is_a_trap_loop() {
    let trap = Trap::new(Cause::IllegalInsn, 0xffff_ffff);
    for handler in [&[MRET][..], &[NOP, NOP, NOP, MRET]] {
        let (mut hart, mut bus) = trapping(&[], handler);
        let exit = hart.run(&mut bus, &mut (), 100_000);
        let kind = LoopKind::Retry;
        assert_eq!(
            exit,
            Exit::TrapLoop(Box::new(TrapLoop { first: trap, first_pc: BASE, second: trap, second_pc: BASE, kind }))
        );
        assert!(hart.steps < 1000, "{} steps", hart.steps);
    }
}

#[test]
fn a_handler_that_steps_over_the_trapping_instruction_in_a_loop_gets_through() {
    // The handler skips the instruction (mepc += 4); the program counts in a6 and jumps back
    // to it: the same trap again and again, but never in the same state.
    let step_over = [csrrs(5, 0x341, 0), addi(5, 5, 4), csrrw(0, 0x341, 5), MRET];
    let (mut hart, mut bus) = trapping(&[addi(16, 16, 1), jal(0, -8)], &step_over);
    assert_eq!(hart.run(&mut bus, &mut (), 100_000), Exit::Budget);
}

#[test]
fn a_handler_that_retries_while_it_counts_gets_through() {
    // It returns to the instruction each time, but counts in s0 (issue 13: ended as a trap
    // loop after 100 retries, though it would go on after 1000).
    let (mut hart, mut bus) = trapping(&[], &[addi(8, 8, 1), MRET]);
    assert_eq!(hart.run(&mut bus, &mut (), 10_000), Exit::Budget);
    assert!(hart.x[8] > 1000, "{} retries", hart.x[8]);
}

#[test]
fn the_same_trap_again_and_again_in_the_same_state_is_a_trap_loop() {
    // The handler returns past the instruction, and the program jumps back to it, unchanged:
    // every round the same, forever (issue 13: a handler that returned elsewhere, to code
    // that trapped again, ran on without end).
    let trap = Trap::new(Cause::IllegalInsn, 0xffff_ffff);
    let step_over = [csrrs(5, 0x341, 0), addi(5, 5, 4), csrrw(0, 0x341, 5), MRET];
    let (mut hart, mut bus) = trapping(&[jal(0, -4)], &step_over);
    let kind = LoopKind::SameState;
    assert_eq!(
        hart.run(&mut bus, &mut (), 100_000),
        Exit::TrapLoop(Box::new(TrapLoop { first: trap, first_pc: BASE, second: trap, second_pc: BASE, kind }))
    );
    assert!(hart.steps < 1000, "{} steps", hart.steps);
}

#[test]
fn a_round_that_touches_memory_or_reads_a_counter_is_no_trap_loop() {
    // The same rounds, each also reading `mcycle` (which moves by itself; the value is then
    // dropped) or loading a word (which a DMA could change; it reads the same each time):
    // the state at each trap is the same, but the next round could differ.
    let step_over = [csrrs(5, 0x341, 0), addi(5, 5, 4), csrrw(0, 0x341, 5), MRET];
    let counter = [csrrs(17, 0xb00, 0), addi(17, 0, 0), jal(0, -12)];
    let load = [i(0, 10, 2, 17, 0x03), jal(0, -8)]; // lw a7, 0(a0)
    for body in [&counter[..], &load] {
        let (mut hart, mut bus) = trapping(body, &step_over);
        hart.x[10] = BASE;
        assert_eq!(hart.run(&mut bus, &mut (), 100_000), Exit::Budget, "{body:x?}");
    }
}

#[test]
fn load_and_store_faults_report_the_address() {
    for (insn, cause) in [(i(0, 10, 2, 11, 0x03), 5), (s(0, 11, 10, 2), 7), (0x0005_200f, 7)] {
        let (mut hart, mut bus) = machine(&[insn]);
        hart.x[10] = 0x9000_0004;
        hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
        hart.run(&mut bus, &mut (), 1);
        assert_eq!((hart.csr.mcause, hart.csr.mtval), (cause, 0x9000_0004), "{insn:#x}");
    }
}

#[test]
fn stores_into_code_are_seen_without_fence_i() {
    // 0: sw a1, 8(a0)  — overwrite the instruction at 8
    // 4: jal x0, +4     — run it
    // 8: addi a2, x0, 1 (replaced by addi a2, x0, 2)
    let program = [s(8, 11, 10, 2), jal(0, 4), addi(12, 0, 1)];
    let (mut hart, mut bus) = machine(&program);
    // Execute the original instruction once so it is in the decoded cache.
    hart.pc = BASE + 8;
    hart.run(&mut bus, &mut (), 1);
    assert_eq!(hart.x[12], 1);
    hart.pc = BASE;
    hart.x[10] = BASE;
    hart.x[11] = addi(12, 0, 2);
    hart.run(&mut bus, &mut (), 3);
    assert_eq!(hart.x[12], 2);
}

#[test]
fn fence_i_drops_decoded_code_changed_behind_the_harts_back() {
    let program = [addi(12, 0, 1), FENCE_I, jal(0, -8)];
    let (mut hart, mut bus) = machine(&program);
    hart.run(&mut bus, &mut (), 1);
    assert_eq!(hart.x[12], 1);
    // Changed without a hart store (as a debugger or DMA would).
    bus.poke(BASE, &addi(12, 0, 3).to_le_bytes()).unwrap();
    hart.run(&mut bus, &mut (), 3); // fence.i, jal, addi
    assert_eq!(hart.x[12], 3);
}

#[test]
fn semihosting_sequence_exits_after_the_ebreak_and_plain_ebreak_traps() {
    let (mut hart, mut bus) = machine(&[SEMIHOST_PRE, EBREAK, SEMIHOST_POST]);
    assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Semihost);
    assert_eq!(hart.pc, BASE + 8);

    let (mut hart, mut bus) = machine(&[NOP, EBREAK, NOP]);
    hart.csr.write(0x305, BASE + 0x40, Counters::default()).unwrap();
    assert_eq!(hart.run(&mut bus, &mut (), 2), Exit::Budget);
    assert_eq!((hart.csr.mcause, hart.csr.mtval), (3, BASE + 4));
}

#[test]
fn tohost_store_halts_after_retiring() {
    // riscv-tests: the low word, then the high word (0); the second store halts.
    let (mut hart, mut bus) = machine(&[s(0, 11, 10, 2), s(4, 0, 10, 2), NOP]);
    bus.watch_stores(BASE + 0x104, 4);
    hart.x[10] = BASE + 0x100;
    hart.x[11] = 1;
    assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Halt);
    assert_eq!(bus.take_watched_stores(), [(BASE + 0x104, 4)]);
    assert_eq!(hart.minstret(), 2);
}

#[test]
fn observer_sees_register_writes_and_traps() {
    #[derive(Default)]
    struct Log(Vec<String>);
    impl Observer for Log {
        fn retired(&mut self, pc: u32, raw: u32, rd: Option<(u8, u32)>) {
            self.0.push(format!("{pc:x} {raw:08x} {rd:?}"));
        }
        fn trapped(&mut self, pc: u32, trap: Trap) {
            self.0.push(format!("{pc:x} {trap}"));
        }
        fn interrupted(&mut self, pc: u32, interrupt: Interrupt) {
            self.0.push(format!("{pc:x} {}", interrupt.describe()));
        }
    }
    let (mut hart, mut bus) = machine(&[addi(10, 0, 5), addi(0, 0, 1), 0]);
    hart.csr.write(0x305, BASE, Counters::default()).unwrap();
    let mut log = Log::default();
    hart.run(&mut bus, &mut log, 3);
    assert_eq!(
        log.0,
        [
            "80000000 00500513 Some((10, 5))",
            "80000004 00100013 None",
            "80000008 illegal instruction (mcause 2, instruction 0x00000000)",
        ]
    );
}

/// The CLINT of these tests: QEMU virt's, at a 10 MHz timebase on the 100 MHz clock of
/// [`machine`] (one `mtime` tick every 10 cycles).
const CLINT: u32 = 0x0200_0000;

/// `program` followed by NOPs up to 4 KiB, with a CLINT; `mtimecmp` set to `compare` ticks.
fn machine_with_timer(program: &[u32], compare: u64) -> (Hart, Memory) {
    machine_with_timer_and_sink(program, compare, &CacheConfig { enabled: false, ..CacheConfig::default() }, ())
}

/// [`machine_with_timer`] with a cache model of `cache`, its events going to `sink`.
fn machine_with_timer_and_sink<S: crate::events::EventSink>(
    program: &[u32],
    compare: u64,
    cache: &CacheConfig,
    sink: S,
) -> (Hart, MemorySystem<S>) {
    use crate::devices::{clint::ClintConfig, DevicesConfig};
    let mut words = program.to_vec();
    words.resize(0x400, NOP);
    let (hart, bus) = machine_with_sink(&words, cache, sink);
    let devices = DevicesConfig { clint: Some(ClintConfig { base: CLINT, timebase_hz: 10_000_000 }), uart: None };
    let mut bus = bus.with_devices(&devices, Box::new(()));
    let at = Access { pc: 0, now: 0 };
    bus.store(at, CLINT + 0x4004, Width::Word, (compare >> 32) as u32).unwrap();
    bus.store(at, CLINT + 0x4000, Width::Word, compare as u32).unwrap();
    (hart, bus)
}

const MSTATUS: u16 = 0x300;
const MIE: u16 = 0x304;
const MTVEC: u16 = 0x305;
const HANDLER: u32 = BASE + 0x800;

#[test]
fn a_timer_interrupt_is_taken_at_the_first_boundary_after_mtime_reaches_mtimecmp() {
    let (mut hart, mut bus) = machine_with_timer(&[], 5); // tick 5 = cycle 50
    hart.csr.write(MTVEC, HANDLER, Counters::default()).unwrap();
    hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
    hart.csr.write(MSTATUS, 1 << 3, Counters::default()).unwrap();
    hart.run(&mut bus, &mut (), 60);
    // 50 one-cycle NOPs reach cycle 50; the interrupt comes before the 51st.
    assert_eq!((hart.csr.mcause, hart.csr.mepc, hart.csr.mtval), (0x8000_0007, BASE + 200, 0));
    assert_eq!(hart.csr.mstatus() & (1 << 3 | 1 << 7), 1 << 7, "MIE cleared, MPIE set");
    assert_eq!(hart.pc, HANDLER + 40, "ten NOPs of the handler ran");
    assert_eq!(hart.minstret(), 60, "taking the interrupt retires nothing");
}

#[test]
fn a_pending_interrupt_waits_for_mstatus_mie_and_vectored_mode_adds_4_times_the_cause() {
    // csrs mstatus, t0 (t0 = MIE) after three NOPs; the software interrupt is pending all along.
    let (mut hart, mut bus) = machine_with_timer(&[NOP, NOP, NOP, csrrs(0, 0x300, 5)], u64::MAX);
    bus.store(Access { pc: 0, now: 0 }, CLINT, Width::Word, 1).unwrap(); // msip
    hart.csr.write(MTVEC, HANDLER | 1, Counters::default()).unwrap();
    hart.csr.write(MIE, Interrupt::Software.bit(), Counters::default()).unwrap();
    hart.x[5] = 1 << 3;
    hart.run(&mut bus, &mut (), 5);
    assert_eq!((hart.csr.mcause, hart.csr.mepc), (0x8000_0003, BASE + 16));
    assert_eq!(hart.pc, HANDLER + 12 + 4, "vector 3, then one instruction");
}

/// An interrupt taken just before an `ecall` whose handler steps over it, again and again:
/// each `ecall` is the first instruction after an `mret` (the interrupt's) and the same trap
/// at the same place as the one before, yet the program makes progress (found in review: the
/// trap-loop rule counted the interrupt's `mret` as a return from the `ecall`).
#[test]
fn an_ecall_after_each_interrupt_is_no_trap_loop() {
    // loop: csrs mie, t1 (enables the pending software interrupt: taken before the ecall);
    //       ecall; j loop
    let mut program = vec![csrrs(0, MIE as u32, 6), ECALL, jal(0, -8)];
    program.resize(((HANDLER - BASE) / 4) as usize, NOP);
    // Vectored: exceptions at HANDLER, the software interrupt at HANDLER + 12.
    program.extend([
        jal(0, 24), // +0: to the exception handler at +24
        NOP,
        NOP,
        csrrc(0, MIE as u32, 6), // +12: the interrupt's: disable it, return
        MRET,                    // +16
        NOP,                     // +20
        csrrs(5, 0x341, 0),      // +24: t0 = mepc
        addi(5, 5, 4),           //      step over the ecall
        csrrw(0, 0x341, 5),
        MRET,
    ]);
    let (mut hart, mut bus) = machine_with_timer(&program, u64::MAX);
    bus.store(Access { pc: 0, now: 0 }, CLINT, Width::Word, 1).unwrap(); // msip: always pending
    hart.csr.write(MTVEC, HANDLER | 1, Counters::default()).unwrap();
    hart.csr.write(MSTATUS, 1 << 3, Counters::default()).unwrap();
    hart.x[6] = Interrupt::Software.bit();
    // About ten steps a round: some 2000 ecalls, each after an interrupt.
    assert_eq!(hart.run(&mut bus, &mut (), 20_000), Exit::Budget);
}

#[test]
fn interrupts_preempt_user_mode_whatever_mstatus_mie() {
    let (mut hart, mut bus) = machine_with_timer(&[], 0); // pending from the start
    hart.csr.write(MTVEC, HANDLER, Counters::default()).unwrap();
    hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
    hart.csr.privilege = Priv::User;
    hart.run(&mut bus, &mut (), 1);
    assert_eq!((hart.csr.mcause, hart.csr.mepc, hart.csr.privilege), (0x8000_0007, BASE, Priv::Machine));
}

#[test]
fn wfi_skips_to_the_timer_edge_and_wakes_even_with_interrupts_masked() {
    const WFI: u32 = 0x1050_0073;
    let (mut hart, mut bus) = machine_with_timer(&[WFI], 1000); // cycle 10000
    hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
    assert_eq!(hart.run(&mut bus, &mut (), 1), Exit::Budget);
    assert_eq!((hart.pc, hart.now), (BASE + 4, 10_001), "woke at cycle 10000, then wfi's own cycle");
    assert_eq!(hart.csr.mcause, 0, "masked: not taken");
    // With nothing enabled, nothing can wake it.
    let (mut hart, mut bus) = machine_with_timer(&[WFI], 1000);
    assert_eq!(hart.run(&mut bus, &mut (), 1), Exit::Asleep { pc: BASE, mie: 0 });
    // A compare value mtime never reaches cannot either.
    let (mut hart, mut bus) = machine_with_timer(&[WFI], u64::MAX);
    hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
    assert!(matches!(hart.run(&mut bus, &mut (), 1), Exit::Asleep { .. }));
    // Nor one beyond the simulator's 2^62 cycles (the clock would overflow after it).
    let (mut hart, mut bus) = machine_with_timer(&[WFI], 1 << 61);
    hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
    assert!(matches!(hart.run(&mut bus, &mut (), 1), Exit::Asleep { .. }));
}

#[test]
fn the_hart_stops_at_the_cycle_limit_and_no_wait_passes_it() {
    const WFI: u32 = 0x1050_0073;
    let (mut hart, mut bus) = machine(&[NOP; 64]);
    hart.set_cycle_limit(10);
    assert_eq!(hart.run(&mut bus, &mut (), 100), Exit::CycleLimit);
    assert_eq!((hart.now, hart.steps), (10, 10), "one cycle per instruction, none past the limit");
    // A wfi for a timer edge beyond the limit waits only up to it.
    let (mut hart, mut bus) = machine_with_timer(&[WFI], 1000); // cycle 10000
    hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
    hart.set_cycle_limit(500);
    assert_eq!(hart.run(&mut bus, &mut (), 5), Exit::CycleLimit);
    assert_eq!(hart.now, 501, "at the limit, then the wfi's own cycle");
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Any words as a program, any register contents: the hart executes, traps or stops
        /// at a trap loop, and never panics.
        #[test]
        fn any_program_runs_without_panicking(
            program in prop::collection::vec(any::<u32>(), 1..64),
            regs in prop::collection::vec(any::<u32>(), 32),
        ) {
            let (mut hart, mut bus) = machine(&program);
            for (r, v) in regs.iter().enumerate().skip(1) {
                hart.x[r] = *v;
            }
            hart.csr.write(0x305, BASE, Counters::default()).unwrap();
            let _ = hart.run(&mut bus, &mut (), 500);
        }
    }
}

#[test]
fn probe_stops_before_the_instruction_every_time_until_removed() {
    // Loop: addi x12, x12, 1 ; jal x0, -4  (the probe is on the addi)
    let (mut hart, mut bus) = machine(&[addi(12, 12, 1), jal(0, -4)]);
    hart.run(&mut bus, &mut (), 4); // two passes: the addi is now in the decoded cache
    assert_eq!(hart.x[12], 2);
    hart.add_probe(BASE);
    for pass in 3..=5 {
        assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Probe);
        assert_eq!((hart.pc, hart.x[12]), (BASE, pass - 1), "stopped before the addi");
        let steps = hart.steps;
        assert_eq!(hart.run(&mut bus, &mut (), 2), Exit::Budget, "running on executes it");
        assert_eq!((hart.x[12], hart.steps), (pass, steps + 2));
    }
    // Nested adds need as many removes.
    hart.add_probe(BASE);
    hart.remove_probe(BASE);
    assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Probe);
    hart.remove_probe(BASE);
    hart.run(&mut bus, &mut (), 2);
    assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Budget);
    assert_eq!(hart.x[12], 6 + 5);
}

#[test]
fn a_probe_removed_at_its_stop_and_added_again_still_stops() {
    // The heap watch's return probes: removed when hit, added again for the next call.
    let (mut hart, mut bus) = machine(&[addi(12, 12, 1), jal(0, -4)]);
    for pass in 1..=3 {
        hart.add_probe(BASE);
        assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Probe);
        hart.remove_probe(BASE);
        assert_eq!(hart.run(&mut bus, &mut (), 2), Exit::Budget);
        assert_eq!(hart.x[12], pass);
    }
}

#[test]
fn an_instruction_that_stops_the_run_completes_first() {
    use crate::devices::uart::{UartConfig, UartInput};
    use crate::devices::DevicesConfig;
    struct Received(Option<u8>);
    impl UartInput for Received {
        fn next_byte(&mut self) -> Option<u8> {
            self.0.take()
        }
    }
    const UART: u32 = 0x1000_0000;
    // amoswap.w zero, a1, (a0): the received byte (non-zero) is the old value, into x0, which
    // must stay zero; the byte written goes out (the host must print it: the run stops);
    // then addi a2, zero, 1.
    let (hart, bus) = machine(&[0x08b5_202f, addi(12, 0, 1)]);
    let devices = DevicesConfig { clint: None, uart: Some(UartConfig { base: UART }) };
    let (mut hart, mut bus) = (hart, bus.with_devices(&devices, Box::new(Received(Some(b'x')))));
    (hart.x[10], hart.x[11]) = (UART, b'!' as u32);
    assert_eq!(hart.run(&mut bus, &mut (), 10), Exit::Halt);
    assert_eq!((hart.x[0], hart.pc, hart.minstret()), (0, BASE + 4, 1));
    assert_eq!(bus.take_console(), b"!");
    hart.run(&mut bus, &mut (), 1);
    assert_eq!(hart.x[12], 1);
}

/// The block translator (`jit`) against the interpreter: random loops of the instructions it
/// compiles — integer, multiply/divide (with the divisors that need care), loads and stores of
/// every width, forward branches and jumps inside the loop, a fault now and then — run for a
/// budget on the same machine twice, once under an observer (which keeps every block
/// interpreted) and once without (hot blocks compiled); registers, PC, clock, steps, how the
/// run ended, the data memory and the cache's statistics must be the same. With a cache model
/// of 1 KiB the accesses stall by hits and misses; with a timer, interrupts come in the middle
/// of compiled loops.
mod translated {
    use super::*;
    use crate::events::{HeldStores, Quiet, QuietFields};
    use mxpsim_detector::event::{Access as EventAccess, Origin, Pos, Range};
    use mxpsim_detector::fast::InlineQuiet;
    use proptest::prelude::*;

    /// Sees everything, keeps nothing: an observer keeps the hart interpreting.
    struct Interpreted;
    impl Observer for Interpreted {
        fn retired(&mut self, _: u32, _: u32, _: Option<(u8, u32)>) {}
        fn trapped(&mut self, _: u32, _: Trap) {}
        fn interrupted(&mut self, _: u32, _: Interrupt) {}
    }

    /// One instruction of the loop's body, before encoding.
    #[derive(Clone, Debug)]
    enum Piece {
        /// funct7, funct3, rd, rs1, rs2.
        Reg(u32, u32, u32, u32, u32),
        /// funct3, rd, rs1, imm (shifts: the shift amount, `srai` with bit 10).
        Imm(u32, u32, u32, i32),
        Lui(u32, u32),
        Auipc(u32, u32),
        /// funct3, rd, offset from the data pointer (or, `fault`, from an unmapped address).
        Load(u32, u32, i32, bool),
        /// funct3, rs2, offset from the data pointer; or, `code`, a store of the counter's low
        /// half over the upper half of the loop's first instruction (`addi x19, x19, 0`, which
        /// stays an `addi x19` from another register, with another immediate).
        Store(u32, u32, i32, bool),
        /// `lr.w rd, (data)`: a reservation of the data's first word (never compiled, so a
        /// block of its own follows only after a branch).
        Lr(u32),
        /// funct3, rs1, rs2, instructions skipped forward.
        Branch(u32, u32, u32, u32),
        /// Instructions skipped forward.
        Jump(u32),
        /// `jal t0, leaf`: a call of the leaf function after the loop (`jalr zero, 0(t0)`
        /// returns).
        Call,
    }

    const DATA: u32 = BASE + 0x8000;
    /// Registers: x1..x19 are the body's, x20 points at the data, x21 at nothing, x22 at the
    /// code, x31 counts.
    const DATA_REG: u32 = 20;
    const NOWHERE_REG: u32 = 21;
    const CODE_REG: u32 = 22;
    const COUNTER: u32 = 31;

    /// The leaf function's link register (t0: a call for the call-context tree).
    const LINK: u32 = 5;

    fn piece() -> impl Strategy<Value = Piece> {
        // x0 too (its writes are dropped), not the link register.
        let rd = prop::sample::select((0..20u32).filter(|&r| r != LINK).collect::<Vec<_>>());
        let rs = 0..22u32;
        // Offsets of the data: anywhere in 2 KiB, or near the lines of set 0 of the 16-set
        // cache (so that its two ways are fought over and the replacement policy matters),
        // or at the first word (which `lr.w` reserves).
        let offset = || {
            prop_oneof![
                3 => 0..2040i32,
                3 => (prop::sample::select(vec![0i32, 512, 1024, 1536]), 0..8i32).prop_map(|(line, off)| line + off),
                1 => 0..4i32,
            ]
        };
        prop_oneof![
            4 => (prop::sample::select(vec![(0, 0), (0x20, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0x20, 5), (0, 6), (0, 7)]), rd.clone(), rs.clone(), rs.clone())
                .prop_map(|((f7, f3), rd, a, b)| Piece::Reg(f7, f3, rd, a, b)),
            3 => (0..8u32, rd.clone(), rs.clone(), rs.clone()).prop_map(|(f3, rd, a, b)| Piece::Reg(1, f3, rd, a, b)),
            4 => (prop::sample::select(vec![0u32, 2, 3, 4, 6, 7]), rd.clone(), rs.clone(), -2048..2048i32)
                .prop_map(|(f3, rd, a, imm)| Piece::Imm(f3, rd, a, imm)),
            2 => (prop::sample::select(vec![(1u32, 0i32), (5, 0), (5, 0x400)]), rd.clone(), rs.clone(), 0..32i32)
                .prop_map(|((f3, high), rd, a, shamt)| Piece::Imm(f3, rd, a, high | shamt)),
            1 => (rd.clone(), any::<u32>()).prop_map(|(rd, imm)| Piece::Lui(rd, imm & 0xf_ffff)),
            1 => (rd.clone(), any::<u32>()).prop_map(|(rd, imm)| Piece::Auipc(rd, imm & 0xf_ffff)),
            4 => (prop::sample::select(vec![0u32, 1, 2, 4, 5]), rd.clone(), offset(), prop::bool::weighted(0.02))
                .prop_map(|(f3, rd, off, fault)| Piece::Load(f3, rd, off, fault)),
            4 => (0..3u32, rs.clone(), offset(), prop::bool::weighted(0.05))
                .prop_map(|(f3, rs2, off, code)| Piece::Store(f3, rs2, off, code)),
            1 => rd.clone().prop_map(Piece::Lr),
            1 => (prop::sample::select(vec![0u32, 1, 4, 5, 6, 7]), rs.clone(), rs.clone(), 1..4u32)
                .prop_map(|(f3, a, b, skip)| Piece::Branch(f3, a, b, skip)),
            1 => (1..3u32).prop_map(Piece::Jump),
            1 => Just(Piece::Call),
        ]
    }

    /// The loop: `addi x19, x19, 0` (patched by code stores), the body, then `addi x31, x31,
    /// -1; bne x31, x0, start`, then `j .`, then the leaf function (`addi x18, x18, 3; sw x18,
    /// 2044(x20); jalr zero, 0(t0)`: a store from another call context). Forward branches and jumps that would skip past the body land on the
    /// counter's `addi`.
    fn program(body: &[Piece]) -> Vec<u32> {
        let n = body.len() as u32;
        let leaf = |k: u32| (4 * (n + 3 - k)) as i32;
        let forward = |k: u32, skip: u32| ((skip + 1).min(n - k) * 4) as i32;
        let mut words = vec![addi(19, 19, 0)];
        words.extend(body.iter().enumerate().map(|(k, p)| match *p {
            Piece::Reg(f7, f3, rd, a, b) => r(f7, b, a, f3, rd, 0x33),
            Piece::Imm(f3, rd, a, imm) => i(imm, a, f3, rd, 0x13),
            Piece::Lui(rd, imm) => lui(rd, imm),
            Piece::Auipc(rd, imm) => imm << 12 | rd << 7 | 0x17,
            Piece::Load(f3, rd, off, fault) => i(off, if fault { NOWHERE_REG } else { DATA_REG }, f3, rd, 0x03),
            Piece::Store(_, _, _, true) => s(2, COUNTER, CODE_REG, 1),
            Piece::Store(f3, rs2, off, false) => s(off, rs2, DATA_REG, f3),
            Piece::Lr(rd) => 0x1000_202f | DATA_REG << 15 | rd << 7,
            Piece::Branch(f3, a, c, skip) => b(forward(k as u32, skip), c, a, f3),
            Piece::Jump(skip) => jal(0, forward(k as u32, skip)),
            Piece::Call => jal(LINK, leaf(k as u32)),
        }));
        words.push(addi(COUNTER, COUNTER, -1));
        words.push(b(-(4 * (n as i32 + 2)), 0, COUNTER, 1));
        words.push(jal(0, 0));
        words.push(addi(18, 18, 3));
        words.push(s(2044, 18, DATA_REG, 2));
        words.push(jalr(0, LINK, 0));
        words
    }

    #[derive(Debug, PartialEq)]
    struct Outcome {
        exit: Exit,
        x: [u32; 32],
        pc: u32,
        now: u64,
        steps: u64,
        retired: u64,
        reservation: Reservation,
        data: Vec<u8>,
        stats: Option<crate::cache::stats::CacheStats>,
        /// With a sink that records them (a bus that keeps call contexts).
        events: Option<Vec<mxpsim_detector::event::Event>>,
        /// With a sink that has a quiet case: what it took and noted.
        quiet: Option<QuietState>,
        /// The call-context tree: the current context and every context.
        contexts: (u32, Vec<(u32, u32, u32)>),
    }

    /// What the run's events are seen by.
    #[derive(Clone, Copy, Debug)]
    enum Sink {
        None,
        /// Every event recorded (`Vec<Event>`).
        Recorded,
        /// [`QuietSink`].
        Quiet,
    }

    /// The state of a [`QuietSink`], where its `QuietFields` are.
    #[derive(Clone, Debug, PartialEq)]
    struct QuietState {
        position: Pos,
        recent: Box<[u64; InlineQuiet::SLOTS]>,
        /// [`InlineQuiet::stamp`] of the generation of its recent entries.
        stamp: u64,
        /// The events it was called for.
        events: u64,
        held: Box<[Held; 16]>,
        /// [`HeldStores::key_base`] of the generation of its held stores.
        held_key_base: u64,
    }

    /// A [`QuietSink`]'s held store.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Held {
        key: u64,
        pos: Pos,
        origin: Origin,
        range: Range,
    }

    /// A sink with a quiet case (as the race checker's): the accesses [`Quiet::take`] takes
    /// are taken so, the others recorded. After each of those, by its position: the access's
    /// recent entry covers writes, reads, or stays; a store is held (in one of 16 entries),
    /// for stores to its line to replace (but every fifth, whose key is none); every seventh
    /// empties the recent entries (a new filter generation). Any other event empties them and
    /// closes the held stores (a new generation of each).
    struct QuietSink {
        state: QuietState,
        recorded: Vec<mxpsim_detector::event::Event>,
        /// Accesses `cached` took by [`Quiet::take`] (not compiled code).
        taken_by_call: u64,
    }

    impl Default for QuietSink {
        fn default() -> Self {
            let state = QuietState {
                position: 0,
                recent: vec![0; InlineQuiet::SLOTS].into_boxed_slice().try_into().expect("SLOTS entries"),
                stamp: InlineQuiet::stamp(1),
                events: 0,
                held: Box::new([Held::default(); 16]),
                held_key_base: HeldStores::key_base(1),
            };
            QuietSink { state, recorded: Vec::new(), taken_by_call: 0 }
        }
    }

    /// The events' lines: the 1 KiB cache's (and the default one's without a cache).
    const LINE_SHIFT: u32 = 5;

    impl crate::events::EventSink for QuietSink {
        fn emit(&mut self, event: mxpsim_detector::event::Event) {
            use mxpsim_detector::event::Event;
            if let Event::Cached { access, range, origin } = event {
                return self.cached(access, range, origin);
            }
            if event.is_cpu_node() {
                self.state.position += 1;
            }
            self.state.events += 1;
            self.state.stamp += InlineQuiet::NEXT_GENERATION;
            self.state.held_key_base += HeldStores::NEXT_GENERATION;
            self.recorded.push(event);
        }

        fn cached(&mut self, access: EventAccess, range: Range, origin: Origin) {
            let quiet = self.quiet().expect("a quiet case");
            // SAFETY: the sink's fields, at its offsets.
            if unsafe { quiet.take((self as *mut QuietSink).cast(), access, range, origin) } {
                self.taken_by_call += 1;
                return;
            }
            let state = &mut self.state;
            state.position += 1;
            state.events += 1;
            let line = range.start & (u32::MAX << LINE_SHIFT);
            let covering = InlineQuiet::covering(state.stamp, line);
            let slot = &mut state.recent[InlineQuiet::slot(line, LINE_SHIFT)];
            match state.position % 3 {
                0 => *slot = covering,
                1 => *slot = covering & !2,
                _ => {}
            }
            if state.position.is_multiple_of(7) {
                state.stamp += InlineQuiet::NEXT_GENERATION;
            }
            if access == EventAccess::Write {
                let key =
                    if state.position.is_multiple_of(5) { 0 } else { HeldStores::key_of(state.held_key_base, line) };
                let index = (line >> LINE_SHIFT) as usize % state.held.len();
                state.held[index] = Held { key, pos: state.position, origin, range };
            }
            self.recorded.push(mxpsim_detector::event::Event::Cached { access, range, origin });
        }

        fn position(&self) -> Pos {
            self.state.position
        }

        fn quiet(&self) -> Option<Quiet> {
            use std::mem::offset_of;
            let at = |offset: usize| offset_of!(QuietSink, state) + offset;
            let fields = QuietFields {
                detector: InlineQuiet {
                    now: at(offset_of!(QuietState, position)),
                    recent: at(offset_of!(QuietState, recent)),
                    stamp: at(offset_of!(QuietState, stamp)),
                },
                held: HeldStores {
                    entries: at(offset_of!(QuietState, held)),
                    key_base: at(offset_of!(QuietState, held_key_base)),
                    slots: 16,
                    stride: size_of::<Held>(),
                    key: offset_of!(Held, key),
                    pos: offset_of!(Held, pos),
                    origin: offset_of!(Held, origin),
                    range: offset_of!(Held, range),
                },
            };
            Some(Quiet { line_shift: LINE_SHIFT, at: fields })
        }
    }

    /// The machine of a run ([`outcome`]).
    #[derive(Clone, Debug)]
    struct Setup {
        /// A 1 KiB cache model (`Some`: its policy, write policy and hit latency) or none.
        cache: Option<(crate::cache::config::Policy, crate::cache::config::WritePolicy, u32)>,
        /// A timer interrupt at this tick, and every 97 ticks after.
        timer: Option<u64>,
        /// What sees the events (call contexts kept with any).
        sink: Sink,
        /// The hart stops at this cycle.
        cycle_limit: Option<u64>,
        /// A word of the data `lr.w` reserved before the run (its index).
        reserved: Option<u32>,
    }

    fn setup() -> impl Strategy<Value = Setup> {
        use crate::cache::config::{Policy, WritePolicy};
        let policy = prop::sample::select(vec![Policy::Lru, Policy::Fifo, Policy::Plru, Policy::Random]);
        let write = prop::sample::select(vec![WritePolicy::Back, WritePolicy::Through]);
        let cache = prop::option::weighted(0.75, (policy, write, prop::sample::select(vec![1u32, 1, 3])));
        (
            cache,
            prop::option::weighted(0.3, 5..400u64),
            prop::sample::select(vec![
                Sink::None,
                Sink::None,
                Sink::None,
                Sink::None,
                Sink::Recorded,
                Sink::Quiet,
                Sink::Quiet,
            ]),
            prop::option::weighted(0.3, 100..40_000u64),
            prop::option::weighted(0.2, 0..8u32),
        )
            .prop_map(|(cache, timer, sink, cycle_limit, reserved)| Setup {
                cache,
                timer,
                sink,
                cycle_limit,
                reserved,
            })
    }

    /// Runs the loop of `body` with the registers `regs` for `rounds` rounds on the machine
    /// of `setup`, the blocks all interpreted or compiled when hot.
    fn outcome(body: &[Piece], regs: &[u32], rounds: u32, setup: &Setup, interpreted: bool) -> Outcome {
        match setup.sink {
            Sink::None => run_loop(body, regs, rounds, setup, (), interpreted).0,
            Sink::Recorded => {
                let (outcome, events) = run_loop(body, regs, rounds, setup, Vec::new(), interpreted);
                Outcome { events: Some(events), ..outcome }
            }
            Sink::Quiet => {
                let (outcome, sink) = run_loop(body, regs, rounds, setup, QuietSink::default(), interpreted);
                Outcome { events: Some(sink.recorded), quiet: Some(sink.state), ..outcome }
            }
        }
    }

    fn run_loop<S: crate::events::EventSink>(
        body: &[Piece],
        regs: &[u32],
        rounds: u32,
        setup: &Setup,
        sink: S,
        interpreted: bool,
    ) -> (Outcome, S) {
        let words = program(body);
        let config = match setup.cache {
            Some((policy, write, hit_latency)) => {
                CacheConfig { size: 1024, line: 32, ways: 2, policy, write, hit_latency, ..CacheConfig::default() }
            }
            None => CacheConfig { enabled: false, ..CacheConfig::default() },
        };
        let timer = setup.timer;
        let (mut hart, mut bus) = match timer {
            Some(compare) => machine_with_timer_and_sink(&words, compare, &config, sink),
            None => machine_with_sink(&words, &config, sink),
        };
        for (r, v) in regs.iter().enumerate().skip(1).take(19) {
            hart.x[r] = *v;
        }
        (hart.x[DATA_REG as usize], hart.x[NOWHERE_REG as usize], hart.x[COUNTER as usize]) =
            (DATA, 0x4000_0000, rounds);
        hart.x[CODE_REG as usize] = BASE;
        if let Some(limit) = setup.cycle_limit {
            hart.set_cycle_limit(limit);
        }
        if let Some(word) = setup.reserved {
            hart.reservation = Reservation(DATA + 4 * word);
        }
        if timer.is_some() {
            // A handler that counts in x30 and puts the next interrupt 97 ticks on.
            let handler = [
                addi(30, 30, 1),
                lui(29, CLINT >> 12),
                i(0, 29, 2, 28, 0x03), // lw t3, mtimecmp
                addi(28, 28, 97),
                s(0, 28, 29, 2), // sw t3, mtimecmp
                MRET,
            ];
            let bytes: Vec<u8> = handler.iter().flat_map(|w| w.to_le_bytes()).collect();
            bus.poke(HANDLER, &bytes).unwrap();
            hart.x[29] = 0;
            hart.csr.write(MTVEC, HANDLER, Counters::default()).unwrap();
            hart.csr.write(MIE, Interrupt::Timer.bit(), Counters::default()).unwrap();
            hart.csr.write(MSTATUS, 1 << 3, Counters::default()).unwrap();
        }
        let budget = 20_000;
        let exit = if interpreted {
            hart.run(&mut bus, &mut Interpreted, budget)
        } else {
            // In pieces, as the simulator's main loop runs it.
            let mut exit = Exit::Budget;
            let mut left = budget;
            while left > 0 && exit == Exit::Budget {
                let steps = hart.steps;
                exit = hart.run(&mut bus, &mut (), left.min(3_000));
                left -= hart.steps - steps;
            }
            exit
        };
        let mut data = vec![0; 2048 + 4];
        bus.peek(DATA, &mut data).unwrap();
        let stats = bus.cache().map(|c| c.stats.clone());
        let outcome = Outcome {
            exit,
            x: hart.x,
            pc: hart.pc,
            now: hart.now,
            steps: hart.steps,
            retired: hart.retired(),
            reservation: hart.reservation,
            data,
            stats,
            events: None,
            quiet: None,
            contexts: (hart.calls().current(), hart.calls().nodes().collect()),
        };
        (outcome, bus.into_sink())
    }

    fn value() -> impl Strategy<Value = u32> {
        prop_oneof![any::<u32>(), prop::sample::select(vec![0u32, 1, u32::MAX, i32::MIN as u32, i32::MAX as u32, 2])]
    }

    /// Calls nested deeper than the call-context tree keeps frames in place, and the returns
    /// from them, made by compiled code as the interpreter makes them: the same events (each
    /// frame's store names its context), the same tree. (The usual call and return are made
    /// in compiled code, the others by the helper: here both, at every depth.)
    #[test]
    fn compiled_calls_deeper_than_the_frames_kept_in_place_keep_the_interpreters_contexts() {
        const A0: u32 = 10;
        const RA: u32 = 1;
        const SP: u32 = 2;
        let depth = crate::cpu::calls::MAX_DEPTH as i32 + 100;
        // main: a0 = depth; call f; count down the rounds; then stop at `j .`.
        // f: push ra (a DRAM store, in f's context); a0 -= 1; if a0 != 0, call f; pop ra; return.
        let words = [
            lui(A0, (depth as u32) >> 12),
            addi(A0, A0, depth & 0xfff),
            jal(RA, 16),
            addi(COUNTER, COUNTER, -1),
            b(-16, 0, COUNTER, 1),
            jal(0, 0),
            addi(SP, SP, -8),
            s(4, RA, SP, 2),
            addi(A0, A0, -1),
            b(8, 0, A0, 0),
            jal(RA, -16),
            i(4, SP, 2, RA, 0x03),
            addi(SP, SP, 8),
            jalr(0, RA, 0),
        ];
        assert_eq!(depth & 0x800, 0, "no carry into lui's part");
        let run = |interpreted: bool| {
            let config = CacheConfig { enabled: false, ..CacheConfig::default() };
            let (mut hart, mut bus) = machine_with_sink(&words, &config, Vec::new());
            (hart.x[SP as usize], hart.x[COUNTER as usize]) = (BASE + 0x1_0000, 3);
            let budget = 200_000;
            if interpreted {
                hart.run(&mut bus, &mut Interpreted, budget);
            } else {
                while hart.steps < budget
                    && hart.run(&mut bus, &mut (), (budget - hart.steps).min(3_000)) == Exit::Budget
                {}
            }
            assert_eq!(hart.pc, BASE + 20, "at the end");
            let contexts = (hart.calls().current(), hart.calls().nodes().collect::<Vec<_>>());
            (hart.steps, contexts, bus.into_sink())
        };
        let interpreted = run(true);
        assert_eq!(interpreted.1 .1.len(), crate::cpu::calls::MAX_DEPTH + 1, "a context per depth kept, and the root");
        assert_eq!(run(false), interpreted);
    }

    /// A load that faults in a block that compiled code went on to (not the one the
    /// interpreter's loop entered) traps as the interpreter traps: the same instruction, steps,
    /// clock and trap state, with a handler that steps over it (and the loop goes on, each
    /// round's fault again in a block entered from the one before) and with none (a trap
    /// loop). Block A (`addi; jal`) goes on to block B (`lw; addi; jal` back to A), whose load
    /// walks up to the end of DRAM: it faults once both blocks are compiled.
    #[test]
    fn a_fault_in_a_block_gone_on_to_traps_as_the_interpreter_traps() {
        const LOADS: u32 = 20; // x20: where block B loads
        let rounds = 2 * u32::from(jit::HOT);
        let words = [
            addi(5, 5, 1),
            jal(0, 4),
            i(0, LOADS, 2, 1, 0x03), // lw x1, 0(x20)
            addi(LOADS, LOADS, 64),
            jal(0, -16),
        ];
        let step_over = [csrrs(6, 0x341, 0), addi(6, 6, 4), csrrw(0, 0x341, 6), MRET];
        let config = CacheConfig { size: 1024, line: 32, ways: 2, ..CacheConfig::default() };
        for handler in [None, Some(&step_over)] {
            let run = |interpreted: bool| {
                let (mut hart, mut bus) = machine_with_sink(&words, &config, Vec::new());
                hart.x[LOADS as usize] = BASE + 0x1_0000 - 64 * rounds;
                if let Some(handler) = handler {
                    let bytes: Vec<u8> = handler.iter().flat_map(|w| w.to_le_bytes()).collect();
                    bus.poke(HANDLER, &bytes).unwrap();
                    hart.csr.write(MTVEC, HANDLER, Counters::default()).unwrap();
                }
                let budget = 20_000;
                let exit = if interpreted {
                    hart.run(&mut bus, &mut Interpreted, budget)
                } else {
                    let mut exit = Exit::Budget;
                    while hart.steps < budget && exit == Exit::Budget {
                        exit = hart.run(&mut bus, &mut (), (budget - hart.steps).min(3_000));
                    }
                    exit
                };
                let trap = (hart.csr.mcause, hart.csr.mepc, hart.csr.mtval);
                (exit, hart.x, hart.pc, hart.steps, hart.now, hart.retired(), trap, bus.into_sink())
            };
            let interpreted = run(true);
            match handler {
                // (mtvec 0, unmapped: the handler's fetch faults.)
                None => {
                    let in_b = |t: &TrapLoop| t.first_pc == BASE + 8 && t.first.cause == Cause::LoadAccessFault;
                    assert!(matches!(&interpreted.0, Exit::TrapLoop(t) if in_b(t)), "{:?}", interpreted.0);
                }
                // (mepc is the handler's by now: the next instruction's.)
                Some(_) => {
                    let (cause, _, tval) = interpreted.6;
                    assert_eq!(cause, 5, "load access faults in block B");
                    assert!(tval >= BASE + 0x1_0000, "past DRAM: {tval:#x}");
                }
            }
            assert!(interpreted.1[5] > rounds, "the rounds before the fault ran");
            assert_eq!(run(false), interpreted, "handler: {}", handler.is_some());
        }
    }

    /// A hit's stall stops at the cycle limit (`Hart::waited`) on the direct path too. Only a
    /// block's last instruction can be an access that crosses the limit in compiled code (its
    /// stall longer than the rest of its block): a block cut at its size limit by a load, run
    /// once for each limit in a window where it runs compiled.
    #[test]
    fn a_direct_hit_stalls_no_further_than_the_cycle_limit() {
        use crate::cache::config::{Policy, WritePolicy};
        let mut body = vec![Piece::Imm(0, 3, 3, 1); block_cache::MAX_INSNS as usize - 2];
        body.push(Piece::Load(2, 1, 0, false));
        for limit in 9_000..9_080 {
            let setup = Setup {
                cache: Some((Policy::Lru, WritePolicy::Back, 4)),
                timer: None,
                sink: Sink::None,
                cycle_limit: Some(limit),
                reserved: None,
            };
            let interpreted = outcome(&body, &[0; 20], 999, &setup, true);
            assert_eq!(interpreted.exit, Exit::CycleLimit);
            assert_eq!(outcome(&body, &[0; 20], 999, &setup, false), interpreted, "limit {limit}");
        }
    }

    /// The loop of `body` run `rounds` times with the quiet sink (1 KiB LRU write-back
    /// cache), interpreted and compiled: both sinks, whose states must be the same.
    fn quiet_sinks(body: &[Piece], rounds: u32) -> (QuietSink, QuietSink) {
        use crate::cache::config::{Policy, WritePolicy};
        let setup = Setup {
            cache: Some((Policy::Lru, WritePolicy::Back, 1)),
            timer: None,
            sink: Sink::Quiet,
            cycle_limit: None,
            reserved: None,
        };
        let (_, interpreted) = run_loop(body, &[0; 20], rounds, &setup, QuietSink::default(), true);
        let (_, compiled) = run_loop(body, &[0; 20], rounds, &setup, QuietSink::default(), false);
        assert_eq!(compiled.state, interpreted.state);
        (interpreted, compiled)
    }

    /// Compiled code takes the quiet case itself: a loop reading two lines by turns calls the
    /// sink only until its block is compiled.
    #[test]
    fn compiled_code_takes_quiet_reads() {
        let rounds = 999;
        let (interpreted, compiled) = quiet_sinks(&[Piece::Load(2, 1, 0, false), Piece::Load(2, 2, 64, false)], rounds);
        let loads = 2 * u64::from(rounds);
        assert!(interpreted.taken_by_call > loads - 10, "nearly every load quiet: {}", interpreted.taken_by_call);
        let calls = compiled.taken_by_call;
        assert!(calls < 2 * u64::from(jit::HOT) + 10, "taken by compiled code once hot: {calls} by calls");
    }

    /// Compiled code holds stores as the sink's quiet case says: a loop storing each round to
    /// the next word (so that each line's held store changes place and position) leaves the
    /// sink as calls leave it, and calls it only for each line's first store once hot.
    #[test]
    fn compiled_code_holds_the_stores_it_takes_as_the_sink_would() {
        let body = [Piece::Store(2, 1, 0, false), Piece::Imm(0, DATA_REG, DATA_REG, 4), Piece::Imm(0, 1, 1, 3)];
        let (_, compiled) = quiet_sinks(&body, 999);
        let calls = compiled.taken_by_call;
        assert!(calls < u64::from(jit::HOT) + 10, "taken by compiled code once hot: {calls} by calls");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn compiled_blocks_run_as_the_interpreter_runs_them(
            body in prop::collection::vec(piece(), 1..24),
            regs in prop::collection::vec(value(), 20),
            rounds in 1..1000u32,
            setup in setup(),
        ) {
            let interpreted = outcome(&body, &regs, rounds, &setup, true);
            let compiled = outcome(&body, &regs, rounds, &setup, false);
            prop_assert_eq!(compiled, interpreted);
        }
    }
}

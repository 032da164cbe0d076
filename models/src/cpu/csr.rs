//! The control and status registers of a hart with M and U modes (no S-mode, no interrupts
//! sources yet), as the riscv-tests `p` environment and picolibc's start-up code use them.
//!
//! Unimplemented CSRs, accesses from too low a privilege and writes to read-only CSRs are
//! illegal instructions (the caller raises the trap).

/// Privilege mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priv {
    User = 0,
    Machine = 3,
}

/// `misa`: RV32 (MXL = 1), extensions A, C, I, M and U-mode. Read-only: C cannot be turned
/// off, so no instruction address is ever misaligned but an odd one.
pub const MISA: u32 = (1 << 30) | ext(b'A') | ext(b'C') | ext(b'I') | ext(b'M') | ext(b'U');

const fn ext(letter: u8) -> u32 {
    1 << (letter - b'A')
}

mod num {
    pub const SATP: u16 = 0x180;
    pub const MSTATUS: u16 = 0x300;
    pub const MISA: u16 = 0x301;
    pub const MEDELEG: u16 = 0x302;
    pub const MIDELEG: u16 = 0x303;
    pub const MIE: u16 = 0x304;
    pub const MTVEC: u16 = 0x305;
    pub const MCOUNTEREN: u16 = 0x306;
    pub const MSTATUSH: u16 = 0x310;
    pub const MSCRATCH: u16 = 0x340;
    pub const MEPC: u16 = 0x341;
    pub const MCAUSE: u16 = 0x342;
    pub const MTVAL: u16 = 0x343;
    pub const MIP: u16 = 0x344;
    pub const PMPCFG0: u16 = 0x3a0;
    pub const PMPCFG3: u16 = 0x3a3;
    pub const PMPADDR0: u16 = 0x3b0;
    pub const PMPADDR15: u16 = 0x3bf;
    pub const MCYCLE: u16 = 0xb00;
    pub const MINSTRET: u16 = 0xb02;
    pub const MCYCLEH: u16 = 0xb80;
    pub const MINSTRETH: u16 = 0xb82;
    pub const CYCLE: u16 = 0xc00;
    pub const TIME: u16 = 0xc01;
    pub const INSTRET: u16 = 0xc02;
    pub const CYCLEH: u16 = 0xc80;
    pub const TIMEH: u16 = 0xc81;
    pub const INSTRETH: u16 = 0xc82;
    pub const MVENDORID: u16 = 0xf11;
    pub const MARCHID: u16 = 0xf12;
    pub const MIMPID: u16 = 0xf13;
    pub const MHARTID: u16 = 0xf14;
    pub const MCONFIGPTR: u16 = 0xf15;
}

/// Names for disassembly.
pub fn name(csr: u16) -> Option<&'static str> {
    use num::*;
    Some(match csr {
        SATP => "satp",
        MSTATUS => "mstatus",
        MISA => "misa",
        MEDELEG => "medeleg",
        MIDELEG => "mideleg",
        MIE => "mie",
        MTVEC => "mtvec",
        MCOUNTEREN => "mcounteren",
        MSTATUSH => "mstatush",
        MSCRATCH => "mscratch",
        MEPC => "mepc",
        MCAUSE => "mcause",
        MTVAL => "mtval",
        MIP => "mip",
        MCYCLE => "mcycle",
        MINSTRET => "minstret",
        MCYCLEH => "mcycleh",
        MINSTRETH => "minstreth",
        CYCLE => "cycle",
        TIME => "time",
        INSTRET => "instret",
        CYCLEH => "cycleh",
        TIMEH => "timeh",
        INSTRETH => "instreth",
        MVENDORID => "mvendorid",
        MARCHID => "marchid",
        MIMPID => "mimpid",
        MHARTID => "mhartid",
        MCONFIGPTR => "mconfigptr",
        _ => return None,
    })
}

const MSTATUS_MIE: u32 = 1 << 3;
const MSTATUS_MPIE: u32 = 1 << 7;
const MSTATUS_MPP_SHIFT: u32 = 11;
const MSTATUS_MPP: u32 = 3 << MSTATUS_MPP_SHIFT;
const MSTATUS_TW: u32 = 1 << 21;
/// Machine software, timer and external interrupt enables: the only `mie` bits without S-mode.
const MIE_MASK: u32 = (1 << 3) | (1 << 7) | (1 << 11);

#[derive(Clone, Debug)]
pub struct Csrs {
    pub privilege: Priv,
    /// `mstatus` bits MIE, MPIE, MPP, TW; all others read as zero.
    mstatus: u32,
    mtvec: u32,
    pub mepc: u32,
    pub mcause: u32,
    pub mtval: u32,
    mscratch: u32,
    mie: u32,
    /// The interrupt lines the devices drive (read-only `mip` bits), as the hart last saw them.
    pub mip: u32,
    mcounteren: u32,
    /// `mcycle` minus the hart's clock: the firmware may write `mcycle`, but the simulation's
    /// clock (which times memory and devices) never jumps. `time` reads the clock itself
    /// (one tick a cycle) and is read-only.
    cycle_offset: u64,
    /// `minstret` minus the instructions retired: the firmware may write `minstret`, but the
    /// hart's own count (statistics, `--max-insns`) never jumps. (An offset, not a count of
    /// its own: the interpreter keeps one counter, not two, per instruction.)
    instret_offset: u64,
}

/// Where the counters stand at one moment: the hart's clock, the instructions retired
/// before it (the one executing not included), and the machine timer (the `time` CSR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub now: u64,
    pub retired: u64,
    pub mtime: u64,
}

impl Default for Csrs {
    fn default() -> Self {
        Csrs {
            privilege: Priv::Machine,
            mstatus: 0,
            mtvec: 0,
            mepc: 0,
            mcause: 0,
            mtval: 0,
            mscratch: 0,
            mie: 0,
            mip: 0,
            mcounteren: 0,
            cycle_offset: 0,
            instret_offset: 0,
        }
    }
}

/// What [`Csrs::steady_state`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteadyCsrs([u32; 10]);

/// Why a CSR access was refused: the instruction is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalCsrAccess;

impl Csrs {
    /// Base address of the trap vector: where exceptions go, and interrupts in direct mode.
    pub fn trap_vector(&self) -> u32 {
        self.mtvec & !3
    }

    /// Where interrupt `code` goes: the base, or in vectored mode (`mtvec` mode 1) the base
    /// plus 4 × code.
    pub fn interrupt_vector(&self, code: u32) -> u32 {
        match self.mtvec & 3 {
            1 => self.trap_vector().wrapping_add(4 * code),
            _ => self.trap_vector(),
        }
    }

    /// The interrupts that are pending and enabled in `mie` (whether or not `mstatus.MIE`
    /// lets them be taken): what wakes `wfi`.
    pub fn enabled_pending(&self) -> u32 {
        self.mip & self.mie
    }

    pub fn mie(&self) -> u32 {
        self.mie
    }

    /// True when an enabled pending interrupt is taken now: in M-mode only with
    /// `mstatus.MIE`, in U-mode always (M-level interrupts preempt lower modes).
    pub fn takes_interrupts(&self) -> bool {
        self.privilege == Priv::User || self.mstatus & MSTATUS_MIE != 0
    }

    pub fn mstatus(&self) -> u32 {
        self.mstatus
    }

    /// `mstatus.TW`: WFI in U-mode is illegal.
    pub fn timeout_wait(&self) -> bool {
        self.mstatus & MSTATUS_TW != 0
    }

    /// Enters M-mode for a trap: MPIE ← MIE, MIE ← 0, MPP ← the old mode.
    pub fn enter_trap(&mut self, cause: u32, epc: u32, tval: u32) {
        self.mcause = cause;
        self.mepc = epc;
        self.mtval = tval;
        let mie = self.mstatus & MSTATUS_MIE != 0;
        self.mstatus &= !(MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_MPP);
        if mie {
            self.mstatus |= MSTATUS_MPIE;
        }
        self.mstatus |= (self.privilege as u32) << MSTATUS_MPP_SHIFT;
        self.privilege = Priv::Machine;
    }

    /// `mret`: MIE ← MPIE, MPIE ← 1, mode ← MPP, MPP ← U. Returns the address to resume at.
    pub fn leave_trap(&mut self) -> u32 {
        let mpie = self.mstatus & MSTATUS_MPIE != 0;
        let mpp = (self.mstatus & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT;
        self.mstatus &= !(MSTATUS_MIE | MSTATUS_MPP);
        if mpie {
            self.mstatus |= MSTATUS_MIE;
        }
        self.mstatus |= MSTATUS_MPIE;
        self.privilege = if mpp == Priv::Machine as u32 { Priv::Machine } else { Priv::User };
        self.mepc
    }

    /// Everything the CSRs hold that only instructions and traps change (not the counters,
    /// which move by themselves; `mip` as the hart last saw the lines): two equal states
    /// behave alike as long as no counter is read.
    pub fn steady_state(&self) -> SteadyCsrs {
        SteadyCsrs([
            self.privilege as u32,
            self.mstatus,
            self.mtvec,
            self.mepc,
            self.mcause,
            self.mtval,
            self.mscratch,
            self.mie,
            self.mip,
            self.mcounteren,
        ])
    }

    /// True for the CSRs whose value moves by itself: the counters and time, and `mip` (the
    /// interrupt lines).
    pub fn moves_by_itself(csr: u16) -> bool {
        use num::*;
        matches!(
            csr,
            MCYCLE | CYCLE | MCYCLEH | CYCLEH | TIME | TIMEH | MINSTRET | INSTRET | MINSTRETH | INSTRETH | MIP
        )
    }

    /// `mcycle` at clock `now`.
    pub fn mcycle(&self, now: u64) -> u64 {
        now.wrapping_add(self.cycle_offset)
    }

    /// `minstret` after `retired` instructions.
    pub fn minstret(&self, retired: u64) -> u64 {
        retired.wrapping_add(self.instret_offset)
    }

    /// Reads CSR `csr` from the current privilege mode with the counters `at`.
    pub fn read(&self, csr: u16, at: Counters) -> Result<u32, IllegalCsrAccess> {
        self.check_privilege(csr)?;
        self.value(csr, at)
    }

    /// Reads CSR `csr` as a debugger does: whatever the hart's privilege mode.
    pub fn debug_read(&self, csr: u16, at: Counters) -> Result<u32, IllegalCsrAccess> {
        self.value(csr, at)
    }

    fn value(&self, csr: u16, at: Counters) -> Result<u32, IllegalCsrAccess> {
        let Counters { now, retired, mtime } = at;
        use num::*;
        Ok(match csr {
            MSTATUS => self.mstatus,
            MISA => super::csr::MISA,
            MTVEC => self.mtvec,
            MEPC => self.mepc,
            MCAUSE => self.mcause,
            MTVAL => self.mtval,
            MSCRATCH => self.mscratch,
            MIE => self.mie,
            MCOUNTEREN => self.mcounteren,
            MIP => self.mip,
            // Accepted for compatibility but without function on this hart: no S-mode to
            // delegate to, no address translation or protection.
            MEDELEG | MIDELEG | MSTATUSH | SATP => 0,
            PMPCFG0..=PMPCFG3 | PMPADDR0..=PMPADDR15 => 0,
            MVENDORID | MARCHID | MIMPID | MHARTID | MCONFIGPTR => 0,
            MCYCLE | CYCLE => self.mcycle(now) as u32,
            MCYCLEH | CYCLEH => (self.mcycle(now) >> 32) as u32,
            TIME => mtime as u32,
            TIMEH => (mtime >> 32) as u32,
            MINSTRET | INSTRET => self.minstret(retired) as u32,
            MINSTRETH | INSTRETH => (self.minstret(retired) >> 32) as u32,
            _ => return Err(IllegalCsrAccess),
        })
    }

    /// Writes CSR `csr` from the current privilege mode with the counters `at`. WARL fields
    /// keep legal values only.
    ///
    /// A write to a counter replaces the increment of the instruction doing it (privileged
    /// spec, "CSR instructions"): the counter is set one below the value, and the increment
    /// after the instruction (one cycle, one instruction) lands exactly on it.
    pub fn write(&mut self, csr: u16, value: u32, at: Counters) -> Result<(), IllegalCsrAccess> {
        use num::*;
        self.check_privilege(csr)?;
        self.set(csr, value, at)?;
        // The instruction's own increment (one cycle, one instruction) lands on the value.
        match csr {
            MCYCLE | MCYCLEH => self.cycle_offset = self.cycle_offset.wrapping_sub(1),
            MINSTRET | MINSTRETH => self.instret_offset = self.instret_offset.wrapping_sub(1),
            _ => {}
        }
        Ok(())
    }

    /// Writes CSR `csr` as a debugger does: whatever the hart's privilege mode (WARL fields
    /// still keep legal values only; read-only CSRs stay read-only).
    pub fn debug_write(&mut self, csr: u16, value: u32, at: Counters) -> Result<(), IllegalCsrAccess> {
        self.set(csr, value, at)
    }

    /// Sets `csr` to `value` with the counters `at` (WARL fields keep legal values only).
    fn set(&mut self, csr: u16, value: u32, at: Counters) -> Result<(), IllegalCsrAccess> {
        use num::*;
        let Counters { now, retired, .. } = at;
        if csr >> 10 == 3 {
            return Err(IllegalCsrAccess); // read-only by address
        }
        match csr {
            MSTATUS => {
                let mpp = match (value & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT {
                    0 => 0,
                    3 => MSTATUS_MPP,
                    _ => self.mstatus & MSTATUS_MPP, // S and H do not exist: keep the old mode
                };
                self.mstatus = (value & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_TW)) | mpp;
            }
            MTVEC => self.mtvec = value & !2, // modes 0 (direct) and 1 (vectored)
            MEPC => self.mepc = value & !1,   // IALIGN = 16 (C)
            MCAUSE => self.mcause = value,
            MTVAL => self.mtval = value,
            MSCRATCH => self.mscratch = value,
            MIE => self.mie = value & MIE_MASK,
            MCOUNTEREN => self.mcounteren = value & 7,
            MISA | MEDELEG | MIDELEG | MIP | MSTATUSH | SATP => {}
            PMPCFG0..=PMPCFG3 | PMPADDR0..=PMPADDR15 => {}
            MCYCLE => self.set_mcycle(set_low(self.mcycle(now), value), now),
            MCYCLEH => self.set_mcycle(set_high(self.mcycle(now), value), now),
            MINSTRET => self.set_minstret(set_low(self.minstret(retired), value), retired),
            MINSTRETH => self.set_minstret(set_high(self.minstret(retired), value), retired),
            _ => return Err(IllegalCsrAccess),
        }
        Ok(())
    }

    fn set_mcycle(&mut self, value: u64, now: u64) {
        self.cycle_offset = value.wrapping_sub(now);
    }

    fn set_minstret(&mut self, value: u64, retired: u64) {
        self.instret_offset = value.wrapping_sub(retired);
    }

    fn check_privilege(&self, csr: u16) -> Result<(), IllegalCsrAccess> {
        let required = (csr >> 8) & 3;
        if (self.privilege as u16) < required {
            return Err(IllegalCsrAccess);
        }
        // U-mode reads of the user counters need their mcounteren bit (CY, TM, IR).
        if self.privilege == Priv::User && matches!(csr, 0xc00..=0xc1f | 0xc80..=0xc9f) {
            let bit = csr & 0x1f;
            if bit >= 3 || self.mcounteren & (1 << bit) == 0 {
                return Err(IllegalCsrAccess);
            }
        }
        Ok(())
    }
}

fn set_low(counter: u64, low: u32) -> u64 {
    (counter & !0xffff_ffff) | low as u64
}

fn set_high(counter: u64, high: u32) -> u64 {
    (counter & 0xffff_ffff) | ((high as u64) << 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misa_reports_rv32imacu() {
        assert_eq!(MISA, 0x4010_1105);
        assert_eq!(Csrs::default().read(0x301, Counters::default()), Ok(0x4010_1105));
    }

    #[test]
    fn trap_entry_and_mret_move_the_interrupt_enable_stack() {
        let mut c = Csrs::default();
        c.write(0x300, MSTATUS_MIE, Counters::default()).unwrap(); // MIE = 1, MPP = U
        c.privilege = Priv::User;
        c.enter_trap(8, 0x8000_0010, 0);
        assert_eq!(c.privilege, Priv::Machine);
        assert_eq!(c.mstatus() & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_MPP), MSTATUS_MPIE);
        assert_eq!(c.leave_trap(), 0x8000_0010);
        assert_eq!(c.privilege, Priv::User);
        assert_eq!(c.mstatus() & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_MPP), MSTATUS_MIE | MSTATUS_MPIE);
    }

    #[test]
    fn mpp_keeps_only_legal_modes() {
        let mut c = Csrs::default();
        c.write(0x300, 3 << 11, Counters::default()).unwrap();
        c.write(0x300, 1 << 11, Counters::default()).unwrap(); // S-mode does not exist
        assert_eq!(c.mstatus() & MSTATUS_MPP, 3 << 11);
        c.write(0x300, 0, Counters::default()).unwrap();
        assert_eq!(c.mstatus() & MSTATUS_MPP, 0);
    }

    #[test]
    fn unimplemented_read_only_and_privileged_accesses_are_illegal() {
        let mut c = Csrs::default();
        assert_eq!(c.read(0x7c0, Counters::default()), Err(IllegalCsrAccess));
        assert_eq!(c.write(0xf14, 1, Counters::default()), Err(IllegalCsrAccess)); // mhartid
        assert_eq!(c.write(0xc00, 1, Counters::default()), Err(IllegalCsrAccess)); // cycle
        c.privilege = Priv::User;
        assert_eq!(c.read(0x340, Counters::default()), Err(IllegalCsrAccess)); // mscratch from U
        assert_eq!(c.read(0xc00, Counters::default()), Err(IllegalCsrAccess)); // cycle without mcounteren.CY
        c.privilege = Priv::Machine;
        c.write(0x306, 0b101, Counters::default()).unwrap();
        c.privilege = Priv::User;
        assert!(c.read(0xc00, Counters::default()).is_ok() && c.read(0xc02, Counters::default()).is_ok());
        assert_eq!(c.read(0xc01, Counters::default()), Err(IllegalCsrAccess)); // TM not granted
    }

    #[test]
    fn counter_writes_replace_the_increment() {
        let mut c = Csrs::default();
        let at = |now, retired| Counters { now, retired, mtime: now };
        c.write(0xb82, 1, at(0, 0x1_0000_0005)).unwrap(); // minstreth
        c.write(0xb02, 100, at(0, 0x1_0000_0006)).unwrap();
        // The writing instruction retires: 0x1_0000_0007 instructions before the next one.
        assert_eq!(c.read(0xb02, at(0, 0x1_0000_0007)), Ok(100));
        assert_eq!(c.read(0xb82, at(0, 0x1_0000_0007)), Ok(1));
        assert_eq!(c.read(0xb02, at(0, 0x1_0000_0009)), Ok(102), "minstret counts on from the value");
        c.write(0xb80, 7, at(1000, 0)).unwrap();
        assert_eq!(c.read(0xb80, at(1001, 0)), Ok(7), "one cycle later: the written value");
        assert_eq!(c.read(0xc01, at(1001, 0)), Ok(1001), "time follows the clock, not mcycle");
    }

    #[test]
    fn a_debuggers_counter_write_reads_back_exactly() {
        let mut c = Csrs::default();
        let at = Counters { now: 1000, retired: 300, mtime: 1000 };
        c.debug_write(0xb02, 500, at).unwrap(); // minstret
        c.debug_write(0xb00, 7000, at).unwrap(); // mcycle
        assert_eq!((c.read(0xb02, at), c.read(0xb00, at)), (Ok(500), Ok(7000)));
    }

    #[test]
    fn accepted_and_ignored_csrs() {
        let mut c = Csrs::default();
        for csr in [0x180, 0x302, 0x303, 0x3a0, 0x3b0, 0x3bf, 0x344] {
            c.write(csr, 0xffff_ffff, Counters::default()).unwrap();
            assert_eq!(c.read(csr, Counters::default()), Ok(0), "csr {csr:#x}");
        }
    }
}

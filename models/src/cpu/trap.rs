//! Synchronous exceptions (this hart has no interrupt sources yet).

use std::fmt;

/// `mcause` values of the exceptions this hart raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    InsnMisaligned = 0,
    InsnAccessFault = 1,
    IllegalInsn = 2,
    Breakpoint = 3,
    /// `lr.w` at an address that is not 4-byte aligned (plain loads may be misaligned).
    LoadMisaligned = 4,
    LoadAccessFault = 5,
    /// `sc.w` or an AMO at an address that is not 4-byte aligned.
    StoreMisaligned = 6,
    StoreAccessFault = 7,
    EcallFromU = 8,
    EcallFromM = 11,
}

impl Cause {
    pub fn describe(self) -> &'static str {
        match self {
            Cause::InsnMisaligned => "instruction address misaligned",
            Cause::InsnAccessFault => "instruction access fault",
            Cause::IllegalInsn => "illegal instruction",
            Cause::Breakpoint => "breakpoint",
            Cause::LoadMisaligned => "load address misaligned",
            Cause::LoadAccessFault => "load access fault",
            Cause::StoreMisaligned => "store/AMO address misaligned",
            Cause::StoreAccessFault => "store access fault",
            Cause::EcallFromU => "environment call from U-mode",
            Cause::EcallFromM => "environment call from M-mode",
        }
    }

    /// A fault the firmware did not mean to take (not a breakpoint or an environment call):
    /// worth a diagnosis whatever its handler does.
    pub fn is_fault(self) -> bool {
        !matches!(self, Cause::Breakpoint | Cause::EcallFromU | Cause::EcallFromM)
    }
}

/// A machine-level interrupt, by its `mcause` code (the interrupt bit aside) and `mip` bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    Software = 3,
    Timer = 7,
    External = 11,
}

impl Interrupt {
    /// Highest priority first (privileged spec: MEI, MSI, MTI).
    pub const BY_PRIORITY: [Interrupt; 3] = [Interrupt::External, Interrupt::Software, Interrupt::Timer];

    /// The `mip`/`mie` bit.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }

    /// The `mcause` value.
    pub const fn mcause(self) -> u32 {
        1 << 31 | self as u32
    }

    pub fn describe(self) -> &'static str {
        match self {
            Interrupt::Software => "machine software interrupt",
            Interrupt::Timer => "machine timer interrupt",
            Interrupt::External => "machine external interrupt",
        }
    }
}

/// An exception with the value that goes to `mtval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trap {
    pub cause: Cause,
    pub tval: u32,
}

impl Trap {
    pub fn new(cause: Cause, tval: u32) -> Self {
        Trap { cause, tval }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (mcause {}", self.cause.describe(), self.cause as u32)?;
        match self.cause {
            Cause::IllegalInsn => write!(f, ", instruction 0x{:08x}", self.tval)?,
            Cause::EcallFromU | Cause::EcallFromM => {}
            _ => write!(f, ", address 0x{:08x}", self.tval)?,
        }
        write!(f, ")")
    }
}

//! mxpsim's exit statuses. A run that ends normally exits with the firmware's own status
//! (semihosting `exit`, or the riscv-tests `tohost` convention); mxpsim's own failures use
//! the codes below, 2 and 101–124, and 66 when a race check found races, one per kind of failure, so scripts can tell them apart.
//! (Firmware that exits with one of these numbers itself is told apart by mxpsim's message
//! on standard error, which firmware exits never produce.)

/// Every way mxpsim itself can fail, with its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The command line is wrong (clap's convention).
    Usage = 2,
    /// The firmware file cannot be read.
    Unreadable = 101,
    /// The file is not an ELF file, or its ELF structures are broken.
    NotElf = 102,
    /// A 64-bit ELF file (mxpsim simulates RV32).
    Elf64 = 103,
    /// A big-endian ELF file (RISC-V is little-endian).
    BigEndian = 104,
    /// An ELF file for another machine, ISA or ABI, or not an executable.
    WrongMachine = 105,
    /// An ELF file with nothing to load.
    NoLoadableSegment = 106,
    /// A segment, or the entry point, lies outside the simulated memory.
    OutsideMemory = 107,
    /// An invalid machine configuration.
    InvalidConfig = 110,
    /// The instruction limit (`--max-insns`) was reached.
    InsnLimit = 120,
    /// The firmware trapped and its trap handler could not run (none installed, or it traps
    /// itself).
    TrapLoop = 121,
    /// Writing an output file (trace) failed.
    HostIo = 122,
    /// The accelerator was given a command it cannot carry out (malformed command, scratchpad
    /// range out of bounds, DMA to an unmapped host address, VL of zero, …).
    Accelerator = 123,
    /// An event trace that is not one, or is damaged.
    BadTrace = 124,
}

impl Failure {
    pub fn code(self) -> u8 {
        self as u8
    }
}

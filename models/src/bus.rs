//! The memory interface of the hart.
//!
//! The hart never touches memory directly: every fetch, load, store and cache-block operation
//! goes through [`Bus`], so caches, the uncached alias and devices can be put behind it without
//! the CPU model knowing. Implementations are used through generics, so the compiler inlines
//! the fast path (a DRAM hit) into the interpreter loop.

/// Width of a data access in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    Byte = 1,
    Half = 2,
    Word = 4,
}

impl Width {
    pub const fn bytes(self) -> u32 {
        self as u32
    }
}

/// Why an access did not complete. The hart turns it into the matching access-fault trap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemFault {
    /// Nothing is mapped at `addr` (or the access runs off the end of a region).
    Unmapped { addr: u32 },
}

impl MemFault {
    /// The address reported in `mtval`.
    pub const fn addr(self) -> u32 {
        match self {
            MemFault::Unmapped { addr } => addr,
        }
    }
}

/// The Zicbom cache-block operations (`cbo.clean`, `cbo.flush`, `cbo.inval`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheBlockOp {
    /// Write the block back if dirty; keep it valid.
    Clean,
    /// Write the block back if dirty, then invalidate it.
    Flush,
    /// Invalidate the block, discarding dirty data.
    Inval,
}

/// What the hart sees of memory.
///
/// Loads return the value zero-extended to 32 bits; the hart sign-extends where the
/// instruction asks for it. Misaligned accesses are allowed and behave like the sequence of
/// byte accesses they cover.
pub trait Bus {
    /// Fetches the 32-bit instruction word at `addr` (4-byte aligned; the hart checks).
    fn fetch(&mut self, addr: u32) -> Result<u32, MemFault>;
    fn load(&mut self, addr: u32, width: Width) -> Result<u32, MemFault>;
    fn store(&mut self, addr: u32, width: Width, value: u32) -> Result<(), MemFault>;
    /// Performs a cache-block operation on the block holding `addr`.
    fn cache_block(&mut self, op: CacheBlockOp, addr: u32) -> Result<(), MemFault>;

    /// True once a store has asked the simulation to stop (the riscv-tests `tohost` write).
    /// The hart checks it after every store and returns to its caller when it is set.
    fn halt_requested(&self) -> bool {
        false
    }

    /// Reads memory as a debugger would: no side effects, no timing, the coherent view.
    /// Used by host services (semihosting) that read the firmware's buffers.
    fn peek(&self, addr: u32, buf: &mut [u8]) -> Result<(), MemFault>;
    /// Writes memory as a debugger would (see [`Bus::peek`]).
    fn poke(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault>;
}

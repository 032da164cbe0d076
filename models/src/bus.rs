//! The memory interface of the hart.
//!
//! The hart never touches memory directly: every fetch, load, store and cache-block operation
//! goes through [`Bus`], so the cache, the uncached alias and devices sit behind it without
//! the CPU model knowing. Implementations are used through generics, so the compiler inlines
//! the fast path into the interpreter loop.
//!
//! Data accesses carry an [`Access`] context (the PC, for the events the memory system
//! reports, and the current cycle, for its timing) and return the cycles the hart stalls.

use crate::events::Quiet;
pub use mxpsim_detector::event::CacheOp;

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

    /// The little-endian value of this width at the start of `bytes`, zero-extended.
    #[inline(always)]
    pub fn load_le(self, bytes: &[u8]) -> u32 {
        match self {
            Width::Byte => bytes[0] as u32,
            Width::Half => u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
            Width::Word => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        }
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

/// Who is accessing memory, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The instruction doing the access.
    pub pc: u32,
    /// The hart's cycle count when the access starts.
    pub now: u64,
}

/// What the hart sees of memory.
///
/// Loads return the value zero-extended to 32 bits and the stall in cycles; the hart
/// sign-extends where the instruction asks for it. Misaligned accesses are allowed and
/// behave like the sequence of byte accesses they cover.
pub trait Bus {
    /// True when the memory system reports events and so wants to know the hart's call
    /// context ([`Bus::set_context`]); otherwise the hart keeps no call contexts (it costs
    /// nothing). The context changes only at calls and returns, so it is told then, not
    /// carried by every access (a third field in [`Access`] cost the interpreter loop 5 %
    /// of its instructions even when it was always 0).
    const CALL_CONTEXTS: bool = false;

    /// The hart entered call context `ctx` (see [`crate::cpu::calls`]) at cycle `now`, by a
    /// jump to `target` (a call's callee, a return's address): the events of the accesses
    /// that follow come from it.
    fn set_context(&mut self, _ctx: u32, _target: u32, _now: u64) {}

    /// Where in the bus `set_context` keeps the context (a `u32`, this many bytes from the
    /// bus's address), when keeping it is all `set_context` does: compiled code then sets it
    /// itself at the usual calls and returns. It may change only between runs of the hart
    /// (as [`Bus::direct`]).
    fn context_field(&self) -> Option<usize> {
        None
    }

    /// Fetches the 16-bit instruction parcel at `addr` (2-byte aligned; the hart checks and
    /// fetches a 32-bit instruction as two parcels). Instruction fetch is ideal: no stall.
    fn fetch(&mut self, addr: u32) -> Result<u16, MemFault>;
    fn load(&mut self, at: Access, addr: u32, width: Width) -> Result<(u32, u64), MemFault>;
    /// Returns the stall in cycles.
    fn store(&mut self, at: Access, addr: u32, width: Width, value: u32) -> Result<u64, MemFault>;
    /// A Zicbom cache-block operation on the block holding `addr`; returns the stall.
    fn cache_block(&mut self, at: Access, op: CacheOp, addr: u32) -> Result<u64, MemFault>;

    /// True once a store has asked the simulation to stop (the riscv-tests `tohost` write).
    /// The hart checks it after every store and returns to its caller when it is set.
    fn halt_requested(&self) -> bool {
        false
    }

    /// The interrupt lines the devices drive at cycle `now`, as `mip` bits (MSIP, MTIP,
    /// MEIP). The hart asks at instruction boundaries from [`Bus::interrupt_due`] on.
    fn interrupts(&mut self, _now: u64) -> u32 {
        0
    }

    /// The first cycle at which the lines may differ from what [`Bus::interrupts`] last
    /// said (a timer reaching its compare value; 0 after a store to a device): the hart looks
    /// again only then, so a machine without interrupt sources costs one comparison per
    /// instruction. `u64::MAX`: never by itself.
    fn interrupt_due(&self) -> u64 {
        u64::MAX
    }

    /// The `mtime` of the machine's timer at cycle `now` (the `time` CSR); one tick per cycle
    /// without a timer device.
    fn mtime(&self, now: u64) -> u64 {
        now
    }

    /// Reads memory as a debugger would: no side effects, no timing, the coherent view.
    /// Used by host services (semihosting) that read the firmware's buffers.
    fn peek(&self, addr: u32, buf: &mut [u8]) -> Result<(), MemFault>;
    /// Writes memory as a debugger would (see [`Bus::peek`]).
    fn poke(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault>;

    /// The direct path this bus offers compiled code for the hart's DRAM accesses, if any
    /// ([`Direct`]). It may change only between runs of the hart (the hart compares it at
    /// the start of each).
    fn direct(&self) -> Option<Direct> {
        None
    }

    /// Where the [`Direct`] path reaches, for code about to take it: valid until the bus is
    /// next used otherwise (the hart asks again at every entry into compiled code).
    fn direct_pointers(&mut self) -> DirectPointers {
        unreachable!("asked only of a bus that offers a direct path")
    }
}

/// A direct path for the hart's DRAM loads and stores, which compiled code takes inline
/// instead of calling [`Bus::load`] and [`Bus::store`] (as QEMU's code reaches guest RAM
/// through its TLB): an access the bus would complete with no effect but its value, the
/// data cache's hit bookkeeping and the hit latency (and an event its sink takes inline,
/// [`QuietPath`]). That is an aligned access
/// inside DRAM's window, before the accelerator's next effect ([`DirectPointers::due`]),
/// whose line the cache's front-end filter holds (with no cache model, any). Every other
/// access calls the bus. Only a bus whose accesses report no events offers one, or one whose
/// event sink has a quiet case ([`QuietPath`]): then only for accesses it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Direct {
    /// DRAM's window: `[base, base + size)`.
    pub base: u32,
    pub size: u32,
    /// False when stores must always call the bus (a write-through cache, watched stores).
    pub stores: bool,
    /// The data cache's hit path; `None`: no cache model (DRAM's bytes are the data).
    pub cache: Option<CacheHits>,
    /// With events: each access is one, and only one the sink's quiet case takes goes this
    /// way. `None`: no events.
    pub quiet: Option<QuietPath>,
}

/// The event sink's quiet case ([`Quiet`]) on the [`Direct`] path, its fields as offsets from
/// the bus's address, and where the bus keeps the call context events come from (a `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietPath {
    pub sink: Quiet,
    pub ctx: usize,
}

/// The data cache's hit path, as [`Direct`] takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHits {
    /// log2 of the line size.
    pub line_shift: u32,
    /// Entries of the front-end filter (a power of two), indexed by the line number's low bits.
    pub filter_entries: u32,
    /// Cycles a hit stalls the hart.
    pub hit_stall: u64,
    /// A hit stamps its slot with the next tick of a clock (LRU); else it changes nothing of
    /// the replacement state (FIFO, random).
    pub stamps: bool,
}

/// A front-end filter entry of the data cache: the line held in `slot`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FilterEntry {
    pub line: u32,
    pub slot: u32,
}

/// What the [`Direct`] path reads and writes, as compiled code finds it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DirectPointers {
    /// The cycle of the accelerator's next effect: a direct access starts before it.
    pub due: *const u64,
    /// DRAM's bytes (no cache model).
    pub dram: *mut u8,
    /// The filter's entries ([`FilterEntry`]).
    pub filter: *const FilterEntry,
    /// The cache's data (a slot's line at `slot << line_shift`), its dirty-byte masks (four
    /// words per slot, a bit per byte), its replacement stamps and their clock (LRU).
    pub data: *mut u8,
    pub dirty: *mut u64,
    pub stamps: *mut u64,
    pub clock: *mut u64,
    /// The cache's read and write access counts.
    pub reads: *mut u64,
    pub writes: *mut u64,
}

impl DirectPointers {
    /// Pointers for a path with no cache model (the cache's are null).
    pub fn memory(due: *const u64, dram: *mut u8) -> Self {
        use std::ptr::{null, null_mut};
        DirectPointers {
            due,
            dram,
            filter: null(),
            data: null_mut(),
            dirty: null_mut(),
            stamps: null_mut(),
            clock: null_mut(),
            reads: null_mut(),
            writes: null_mut(),
        }
    }
}

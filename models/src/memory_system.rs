//! The SoC's memory system as the hart sees it: a bus dispatcher with its timing glue. It
//! decodes each access by the memory map ([`map`]: one table), sends it to the data cache in
//! front of DRAM, the uncached path, the accelerator's port ([`mxp_port`]) or a device
//! ([`crate::devices`]), times it over AXI with a write buffer, and reports the events every
//! CPU access produces.
//!
//! | region | default | what |
//! |---|---|---|
//! | DRAM | `0x8000_0000`, 64 MiB | cached (write-back by default) |
//! | more memory | `[[memory.regions]]`, none by default (`virt`: flash at `0x2000_0000`) | RAM or ROM, cached or not (uncached: the CPU's accesses are `cpu_uncached_*` nodes) |
//! | uncached alias | `0xC000_0000`, DRAM's size | the same DRAM, bypassing the cache with no coherence check (Nios II style) |
//! | system control | `0x4000_0000`, 4 KiB | [`sysctl`] registers: whole-cache maintenance, cache and MXP parameters |
//! | MXP instruction port | `0x4001_0000`, 256 B | 32-bit stores append command words, loads return replies ([`crate::mxp`]) |
//! | MXP scratchpad | `0x5000_0000`, 256 KiB | uncached, byte addressable; not ordered with the engine's work |
//! | watched stores | inside DRAM ([`MemorySystem::watch_stores`]: the riscv-tests `tohost` word) | a store there stops the run after its instruction, for the host to look |
//! | CLINT | `[devices.clint]`, none by default (`virt`: `0x0200_0000`, 64 KiB) | [`crate::devices::clint`]: `mtime`, `mtimecmp`, `msip` |
//! | UART | `[devices.uart]`, none by default (`virt`: `0x1000_0000`, 256 B) | [`crate::devices::uart`]: ns16550a console |
//!
//! Everything else is unmapped: an access there is an access fault.

use crate::axi::{Axi, AxiConfig, Dir, Master};
use crate::bus::{Access, Bus, CacheOp, Direct, DirectPointers, MemFault, QuietPath, Width};
use crate::cache::config::CacheConfig;
use crate::cache::{Cache, Traffic};
use crate::devices::clint::Clint;
use crate::devices::uart::{Uart, UartInput};
use crate::devices::{read_part, DevicesConfig};
use crate::dram::Dram;
use crate::events::{EventSink, Quiet};
use crate::mxp::config::MxpConfig;
use crate::mxp::engine::{Mxp, MxpError};
use crate::schedule::Schedule;
use crate::stop::{Stop, StopRequest};
use crate::timeline::{Record, Recorder};
use crate::write_buffer::WriteBuffer;
pub(crate) use map::offset_in;
pub use map::{layout, MapEntry, MemoryMap, Part, Region, RegionKind};
use mxpsim_detector::event::{self, Event, Origin, Range, Scope, Space};
use std::collections::BTreeSet;

mod map;
mod mxp_port;
mod scheduled;

pub use crate::devices::sysctl;

/// Where an access lands.
enum Target {
    /// Cached DRAM (physical address).
    Dram,
    /// DRAM through the uncached alias, at this physical address.
    Uncached(u32),
    /// A system-control register at this offset.
    Sysctl(u32),
    /// The accelerator's instruction port.
    MxpPort,
    /// The scratchpad, at this offset.
    Scratchpad(u32),
    /// ROM through the cache (loads only), at this address.
    CachedRom,
    /// ROM not through the cache (loads only), at this address.
    UncachedRom(u32),
    /// A CLINT register, at this offset.
    Clint(u32),
    /// A UART register, at this offset.
    Uart(u32),
}

pub struct MemorySystem<S: EventSink> {
    map: MemoryMap,
    /// The memory map as one table ([`layout`]), DRAM first.
    layout: Vec<MapEntry>,
    dram: Dram,
    /// `None`: no cache model (functional mode): coherent memory, every access a hit.
    cache: Option<Cache>,
    /// The line size events are reported with (the cache's, also in functional mode).
    line: u32,
    hit_stall: u64,
    axi: Axi,
    write_buffer: WriteBuffer,
    /// The bytes the host watches stores to ([`MemorySystem::watch_stores`]).
    watched: Option<Range>,
    /// Stores into `watched` not yet taken by the host, as `(address, length)`.
    watched_stores: Vec<(u32, u32)>,
    /// UART bytes not yet handed to the host ([`MemorySystem::take_console`]).
    console: Vec<u8>,
    mxp: Mxp,
    /// The cycle of the accelerator's next effect (cached [`Mxp::next_due`]): CPU accesses
    /// from that cycle on first let the accelerator catch up.
    mxp_due: u64,
    /// The accelerator's error, which stops the run.
    mxp_error: Option<MxpError>,
    /// The CPU never waits for the accelerator past this cycle ([`MemorySystem::set_limits`]).
    cycle_limit: u64,
    /// Why the run must stop before the hart's next instruction, besides an accelerator error.
    stop: Option<Stop>,
    /// Whether any of the above asks the hart to halt (watched stores or console bytes not
    /// taken, an accelerator error, a stop): [`MemorySystem::halting_now`], kept at every
    /// change, so that the test after each CPU access is one load, not four.
    halting: bool,
    clock_hz: u32,
    /// The hart's call context ([`Bus::set_context`]), for the events' origins.
    ctx: u32,
    clint: Option<Clint>,
    uart: Option<Uart>,
    /// The cycle from which the interrupt lines may have changed ([`Bus::interrupt_due`]).
    irq_due: u64,
    /// A deliberate schedule ([`MemorySystem::set_schedule`]), if any.
    schedule: Option<Box<Schedule>>,
    /// The timeline being recorded ([`MemorySystem::record_timeline`]), if any.
    timeline: Option<Box<Recorder>>,
    sink: S,
}

impl<S: EventSink> MemorySystem<S> {
    /// A memory system for a validated map and configurations; `clock_hz` is what the
    /// system-control registers report. Devices are added with [`MemorySystem::with_devices`].
    pub fn new(map: MemoryMap, cache: &CacheConfig, axi: AxiConfig, mxp: &MxpConfig, clock_hz: u32, sink: S) -> Self {
        let mut dram = Dram::new(map.dram_base, map.dram_size);
        for r in &map.regions {
            dram.add_bank(r.base, r.size, r.kind == RegionKind::Ram);
        }
        MemorySystem {
            dram,
            layout: layout(&map, mxp, &DevicesConfig::default()),
            map,
            cache: cache.enabled.then(|| Cache::new(cache)),
            line: cache.line,
            hit_stall: cache.hit_latency as u64 - 1,
            axi: Axi::new(axi),
            write_buffer: WriteBuffer::new(cache.write_buffer),
            watched: None,
            watched_stores: Vec::new(),
            console: Vec::new(),
            mxp: Mxp::new(mxp),
            mxp_due: u64::MAX,
            mxp_error: None,
            cycle_limit: u64::MAX,
            stop: None,
            halting: false,
            clock_hz,
            ctx: 0,
            clint: None,
            uart: None,
            irq_due: u64::MAX,
            schedule: None,
            timeline: None,
            sink,
        }
    }

    /// The UART receives from `input` from now on (if the machine has one).
    pub fn connect_uart_input(&mut self, input: Box<dyn UartInput>) {
        if let Some(uart) = &mut self.uart {
            uart.connect(input);
        }
    }

    /// Adds the devices of `config` (their regions validated with the map); the UART
    /// receives from `uart_input`.
    pub fn with_devices(mut self, config: &DevicesConfig, uart_input: Box<dyn UartInput>) -> Self {
        self.clint = config.clint.as_ref().map(|c| Clint::new(c, self.clock_hz));
        self.uart = config.uart.as_ref().map(|_| Uart::new(uart_input));
        self.layout = layout(&self.map, self.mxp.config(), config);
        self.irq_due = if self.clint.is_some() { 0 } else { u64::MAX };
        self
    }

    /// Records a timeline from now on ([`crate::timeline`]).
    pub fn record_timeline(&mut self, recorder: Recorder) {
        if let Some(cache) = self.cache.as_mut() {
            cache.log_actions();
        }
        self.timeline = Some(Box::new(recorder));
    }

    /// The timeline recorded, once the run is over.
    pub fn take_timeline(&mut self) -> Option<Recorder> {
        self.timeline.take().map(|t| *t)
    }

    pub fn mxp(&self) -> &Mxp {
        &self.mxp
    }

    /// The accelerator's error, if it stopped the run.
    pub fn mxp_error(&self) -> Option<&MxpError> {
        self.mxp_error.as_ref()
    }

    /// Bounds the run: the CPU never waits for the accelerator past `cycle_limit`, and the
    /// accelerator gives up a long command when `stop` is set (both stop the run with
    /// [`MemorySystem::stop`] set).
    pub fn set_limits(&mut self, cycle_limit: u64, stop: StopRequest) {
        self.cycle_limit = cycle_limit;
        self.mxp.set_stop_request(stop);
    }

    /// Why the run must stop, when the memory system asked the hart to halt for that.
    pub fn stop(&self) -> Option<Stop> {
        self.stop
    }

    /// Stops the run after every CPU store into `[start, start + len)` of DRAM, for the host
    /// to look at (the riscv-tests `tohost` word: `sim`'s HTIF).
    pub fn watch_stores(&mut self, start: u32, len: u32) {
        self.watched = Some(Range::new(start, len));
    }

    /// The stores into the watched bytes since the last call, as `(address, length)`.
    pub fn take_watched_stores(&mut self) -> Vec<(u32, u32)> {
        let stores = std::mem::take(&mut self.watched_stores);
        self.halting = self.halting_now();
        stores
    }

    /// The UART bytes written since the last call (the run stops after each store that
    /// writes one, so that the host prints them in order with its other output).
    pub fn take_console(&mut self) -> Vec<u8> {
        let bytes = std::mem::take(&mut self.console);
        self.halting = self.halting_now();
        bytes
    }

    /// Whether the hart must halt for the memory system's own reasons (see `halting`).
    fn halting_now(&self) -> bool {
        !self.watched_stores.is_empty() || !self.console.is_empty() || self.mxp_error.is_some() || self.stop.is_some()
    }

    /// True when the event sink asked to stop (a race checker halting on the first race).
    pub fn sink_wants_halt(&self) -> bool {
        S::ENABLED && self.sink.wants_halt()
    }

    pub fn map(&self) -> &MemoryMap {
        &self.map
    }

    pub fn dram(&self) -> &Dram {
        &self.dram
    }

    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    pub fn sink(&self) -> &S {
        &self.sink
    }

    pub fn into_sink(self) -> S {
        self.sink
    }

    /// What is mapped at `addr`, in words (`None`: nothing).
    pub fn region_at(&self, addr: u32) -> Option<String> {
        let entry = self.layout.iter().find(|e| e.offset(addr, 1).is_some())?;
        Some(entry.part.describe(&self.map))
    }

    /// True if `[addr, addr + len)` is memory (DRAM or another region), where an ELF segment
    /// may be loaded.
    pub fn is_memory(&self, addr: u32, len: u32) -> bool {
        self.dram.contains(addr, len)
    }

    /// Where an access of `len` bytes at `addr` lands (`None`: unmapped, or running off the
    /// end of a part). DRAM is looked at first, inline: nearly every access goes there.
    #[inline(always)]
    fn target(&self, addr: u32, len: u32) -> Option<Target> {
        match self.layout[0].offset(addr, len) {
            Some(_) => Some(Target::Dram),
            None => self.other_target(addr, len),
        }
    }

    #[inline(never)]
    fn other_target(&self, addr: u32, len: u32) -> Option<Target> {
        let (entry, off) = self.layout[1..].iter().find_map(|e| e.offset(addr, len).map(|off| (e, off)))?;
        Some(match entry.part {
            Part::Dram => Target::Dram,
            Part::UncachedAlias => Target::Uncached(self.map.dram_base + off),
            Part::Scratchpad => Target::Scratchpad(off),
            Part::MxpPort => Target::MxpPort,
            Part::Sysctl => Target::Sysctl(off),
            Part::Region(i) => match (self.map.regions[i].kind, self.map.regions[i].cached) {
                (RegionKind::Ram, true) => Target::Dram,
                (RegionKind::Ram, false) => Target::Uncached(addr),
                (RegionKind::Rom, true) => Target::CachedRom,
                (RegionKind::Rom, false) => Target::UncachedRom(addr),
            },
            Part::Clint => Target::Clint(off),
            Part::Uart => Target::Uart(off),
        })
    }

    /// A load from a device register.
    #[cold]
    fn device_read(&mut self, target: Target, width: Width, now: u64) -> u32 {
        match (target, &mut self.clint, &mut self.uart) {
            (Target::Clint(off), Some(clint), _) => clint.read(off, width, now),
            (Target::Uart(off), _, Some(uart)) => uart.read(off) as u32,
            _ => unreachable!("the layout has only the devices present"),
        }
    }

    /// A store to a device register; the interrupt lines may change.
    #[cold]
    fn device_write(&mut self, target: Target, width: Width, value: u32, now: u64) {
        match (target, &mut self.clint, &mut self.uart) {
            (Target::Clint(off), Some(clint), _) => {
                clint.write(off, width, value, now);
                self.irq_due = 0;
            }
            (Target::Uart(off), _, Some(uart)) => {
                if let Some(byte) = uart.write(off, value as u8) {
                    self.console.push(byte);
                    self.halting = true;
                }
            }
            _ => unreachable!("the layout has only the devices present"),
        }
    }

    /// Where an event of the instruction at `pc` comes from, at `cycle`.
    fn origin(&self, pc: u32, cycle: u64) -> Origin {
        Origin { pc, cycle, ctx: self.ctx }
    }

    fn emit(&mut self, event: Event) {
        if S::ENABLED {
            self.sink.emit(event);
        }
    }

    /// Reports a CPU access outside the cache.
    #[inline(always)]
    fn emit_cpu_access(&mut self, space: Space, access: event::Access, range: Range, at: Access) {
        if S::ENABLED {
            let origin = self.origin(at.pc, at.now);
            self.sink.cpu_access(space, access, range, origin);
        }
    }

    /// Reports a cached access, one event per line it touches.
    #[inline(always)]
    fn emit_cached(&mut self, access: event::Access, addr: u32, len: u32, at: Access) {
        if !S::ENABLED {
            return;
        }
        let origin = self.origin(at.pc, at.now);
        if within_line(addr, len, self.line) {
            // Every aligned access: one event, no splitting.
            self.sink.cached(access, Range::new(addr, len), origin);
            return;
        }
        for (start, part) in line_parts(addr, len, self.line) {
            self.sink.cached(access, Range::new(start, part), origin);
        }
    }

    /// Stall of the cache's memory traffic for an access made at `now`: a hit costs the hit
    /// latency, a fill the bus read; write-backs are posted to the write buffer.
    #[inline(always)]
    fn time_cache_traffic(&mut self, traffic: Traffic, now: u64) -> u64 {
        if traffic == Traffic::default() {
            return self.hit_stall; // a hit: the common case
        }
        self.time_bus_traffic(traffic, now)
    }

    #[inline(never)]
    fn time_bus_traffic(&mut self, traffic: Traffic, now: u64) -> u64 {
        if let (Some(timeline), Some(cache)) = (self.timeline.as_mut(), self.cache.as_mut()) {
            for (action, line) in cache.take_actions() {
                timeline.push(Record::Cache { action, line, cycle: now });
            }
        }
        let mut stall = self.hit_stall;
        if traffic.fill > 0 {
            stall = self.axi.transfer(Master::Cache, Dir::Read, traffic.fill.into(), now) - now;
        }
        for bytes in [traffic.writeback, traffic.through] {
            if bytes > 0 {
                stall += self.post_write(Master::Cache, bytes, now + stall);
            }
        }
        stall
    }

    /// Posts a write of `bytes` at `now`; returns the stall while the write buffer is full.
    fn post_write(&mut self, master: Master, bytes: u32, now: u64) -> u64 {
        self.write_buffer.post(&mut self.axi, master, bytes, now)
    }

    /// A DRAM load without a cache model: fixed-size reads (no `memcpy`).
    #[inline(always)]
    fn dram_load(&self, addr: u32, width: Width) -> u32 {
        let value = match width {
            Width::Byte => self.dram.read::<1>(addr).map(|b| b[0] as u32),
            Width::Half => self.dram.read::<2>(addr).map(|b| u16::from_le_bytes(b) as u32),
            Width::Word => self.dram.read::<4>(addr).map(u32::from_le_bytes),
        };
        value.expect("target checked")
    }

    #[inline(always)]
    fn dram_store(&mut self, addr: u32, width: Width, value: u32) {
        let done = match width {
            Width::Byte => self.dram.write::<1>(addr, [value as u8]),
            Width::Half => self.dram.write::<2>(addr, (value as u16).to_le_bytes()),
            Width::Word => self.dram.write::<4>(addr, value.to_le_bytes()),
        };
        done.expect("target checked")
    }

    /// A cached load of `buf` that the cache's front-end filter did not take (`load` tries it
    /// first): a search of the set, a miss, or an access across two lines.
    #[inline(always)]
    fn cached_read(&mut self, addr: u32, buf: &mut [u8], now: u64) -> u64 {
        let cache = self.cache.as_mut().expect("called with a cache model");
        if within_line(addr, buf.len() as u32, cache.line_size()) {
            let traffic = cache.read(&mut self.dram, addr, buf);
            return self.time_cache_traffic(traffic, now);
        }
        let mut traffic = Traffic::default();
        let mut done = 0;
        for (start, part) in line_parts(addr, buf.len() as u32, cache.line_size()) {
            let t = cache.read(&mut self.dram, start, &mut buf[done..done + part as usize]);
            traffic = add(traffic, t);
            done += part as usize;
        }
        self.time_cache_traffic(traffic, now)
    }

    #[inline(always)]
    fn cached_write(&mut self, addr: u32, data: &[u8], now: u64) -> u64 {
        let cache = self.cache.as_mut().expect("called with a cache model");
        if within_line(addr, data.len() as u32, cache.line_size()) {
            if cache.write_filtered(addr, data) {
                return self.hit_stall;
            }
            let traffic = cache.write(&mut self.dram, addr, data);
            return self.time_cache_traffic(traffic, now);
        }
        let mut traffic = Traffic::default();
        let mut done = 0;
        for (start, part) in line_parts(addr, data.len() as u32, cache.line_size()) {
            let t = cache.write(&mut self.dram, start, &data[done..done + part as usize]);
            traffic = add(traffic, t);
            done += part as usize;
        }
        self.time_cache_traffic(traffic, now)
    }

    /// What the system-control registers report of this machine.
    fn sysctl_facts(&self) -> sysctl::Facts<'_> {
        sysctl::Facts {
            line: self.line,
            cache_size: self.cache.as_ref().map_or(0, Cache::size),
            mxp: self.mxp.config(),
            clock_hz: self.clock_hz,
        }
    }

    /// A store to the system-control registers: a whole-cache command, if it is one.
    fn sysctl_write(&mut self, at: Access, offset: u32, value: u32) -> u64 {
        let Some(op) = sysctl::command(offset, value) else { return 0 };
        self.emit(Event::CacheMaintenance { op, scope: Scope::All, origin: self.origin(at.pc, at.now) });
        match self.cache.as_mut() {
            Some(cache) => {
                let traffic = cache.maintain_all(&mut self.dram, op);
                self.time_cache_traffic(traffic, at.now)
            }
            None => 0,
        }
    }
}

fn add(a: Traffic, b: Traffic) -> Traffic {
    Traffic { fill: a.fill + b.fill, writeback: a.writeback + b.writeback, through: a.through + b.through }
}

/// True if `[addr, addr + len)` lies in one line (every aligned access does).
#[inline(always)]
fn within_line(addr: u32, len: u32, line: u32) -> bool {
    (addr & (line - 1)) + len <= line
}

/// Splits `[addr, addr + len)` at line boundaries into `(start, length)` parts.
fn line_parts(addr: u32, len: u32, line: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        (pos < len).then(|| {
            let start = addr + pos;
            let part = (line - (start & (line - 1))).min(len - pos);
            pos += part;
            (start, part)
        })
    })
}

fn bytes_of(value: u32, width: Width) -> ([u8; 4], usize) {
    (value.to_le_bytes(), width.bytes() as usize)
}

/// The pages [`MemorySystem::peek_dram_pages`] hands out.
pub const DRAM_PAGE: u32 = 4096;

impl<S: EventSink> MemorySystem<S> {
    /// Where the hart's call context is ([`Bus::set_context`]), for compiled code.
    const CONTEXT: usize = std::mem::offset_of!(Self, ctx);

    /// DRAM as [`Bus::peek`] shows it, [`DRAM_PAGE`] bytes at a time (the last page shorter
    /// if DRAM's size asks), each with its address, but for the pages that are all zero: a
    /// capture of all DRAM after a run, without copying and comparing the megabytes a
    /// program never touched (each copied page a page fault, 4 KiB zeroed).
    pub fn peek_dram_pages(&self, mut page: impl FnMut(u32, &[u8])) {
        let (base, size) = (self.map.dram_base, self.map.dram_size);
        // (So that a line's page, its address rounded down, is one of DRAM's pages: the memory
        // map's validation puts DRAM on a 4 KiB boundary.)
        mxpsim_detector::invariant!(base % DRAM_PAGE == 0, "DRAM on a page boundary");
        let cached: BTreeSet<u32> = match &self.cache {
            Some(cache) => cache.held_lines().map(|line| line & !(DRAM_PAGE - 1)).collect(),
            None => BTreeSet::new(),
        };
        let mut bytes = vec![0; DRAM_PAGE as usize];
        for start in (0..size).step_by(DRAM_PAGE as usize) {
            let (addr, len) = (base + start, (size - start).min(DRAM_PAGE) as usize);
            let bytes = &mut bytes[..len];
            // (A page with no line in the cache is DRAM's own: no look for lines per line.)
            match cached.contains(&addr) {
                true => self.peek(addr, bytes),
                false => self.dram.read_bytes(addr, bytes),
            }
            .expect("DRAM is memory");
            if bytes.iter().any(|&b| b != 0) {
                page(addr, bytes);
            }
        }
    }
}

impl<S: EventSink> Bus for MemorySystem<S> {
    const CALL_CONTEXTS: bool = S::ENABLED;

    fn set_context(&mut self, ctx: u32, target: u32, now: u64) {
        self.ctx = ctx;
        if let Some(timeline) = &mut self.timeline {
            timeline.push(Record::Context { ctx, pc: target, cycle: now });
        }
    }

    fn context_field(&self) -> Option<usize> {
        // (A timeline records each change of context.)
        (S::ENABLED && self.timeline.is_none()).then_some(Self::CONTEXT)
    }

    #[inline(always)]
    fn fetch(&mut self, addr: u32) -> Result<u16, MemFault> {
        // Code is fetched from memory (a perfect instruction cache that sees the coherent
        // view), not through DRAM's uncached alias (an uncached region is its own address).
        let code = match self.target(addr, 2) {
            Some(Target::Dram | Target::CachedRom | Target::UncachedRom(_)) => true,
            Some(Target::Uncached(phys)) => phys == addr,
            _ => false,
        };
        if !code {
            return Err(MemFault::Unmapped { addr });
        }
        let mut parcel = [0; 2];
        self.peek(addr, &mut parcel)?;
        Ok(u16::from_le_bytes(parcel))
    }

    #[inline(always)]
    fn load(&mut self, at: Access, addr: u32, width: Width) -> Result<(u32, u64), MemFault> {
        let len = width.bytes();
        let mut buf = [0u8; 4];
        let bytes = &mut buf[..len as usize];
        self.catch_up(at);
        let stall = match self.target(addr, len).ok_or(MemFault::Unmapped { addr })? {
            Target::Dram | Target::CachedRom => {
                self.emit_cached(event::Access::Read, addr, len, at);
                let Some(cache) = self.cache.as_mut() else { return Ok((self.dram_load(addr, width), 0)) };
                if within_line(addr, len, cache.line_size()) {
                    if let Some(value) = cache.load_filtered(addr, width) {
                        return Ok((value, self.hit_stall)); // a hit: the common case
                    }
                }
                self.cached_read(addr, bytes, at.now)
            }
            Target::Uncached(phys) | Target::UncachedRom(phys) => {
                self.emit_cpu_access(Space::Dram, event::Access::Read, Range::new(phys, len), at);
                self.dram.read_bytes(phys, bytes).expect("target checked");
                self.axi.transfer(Master::Uncached, Dir::Read, len.into(), at.now) - at.now
            }
            Target::Sysctl(offset) => return Ok((read_part(self.sysctl_facts().read(offset & !3), offset, width), 0)),
            Target::MxpPort => return Ok(self.port_read(at, width)),
            device @ (Target::Clint(_) | Target::Uart(_)) => return Ok((self.device_read(device, width, at.now), 0)),
            Target::Scratchpad(off) => {
                self.emit_cpu_access(Space::Scratchpad, event::Access::Read, Range::new(off, len), at);
                bytes.copy_from_slice(&self.mxp.scratchpad()[off as usize..(off + len) as usize]);
                0
            }
        };
        Ok((u32::from_le_bytes(buf), stall))
    }

    #[inline(always)]
    fn store(&mut self, at: Access, addr: u32, width: Width, value: u32) -> Result<u64, MemFault> {
        let (buf, len) = bytes_of(value, width);
        let data = &buf[..len];
        self.catch_up(at);
        let stall = match self.target(addr, len as u32).ok_or(MemFault::Unmapped { addr })? {
            Target::CachedRom | Target::UncachedRom(_) => return Err(MemFault::Unmapped { addr }),
            Target::Dram => {
                self.emit_cached(event::Access::Write, addr, len as u32, at);
                let stall = match self.cache {
                    None => {
                        self.dram_store(addr, width, value);
                        0
                    }
                    Some(_) => self.cached_write(addr, data, at.now),
                };
                if let Some(watched) = self.watched {
                    if watched.overlaps(Range::new(addr, len as u32)) {
                        self.watched_stores.push((addr, len as u32));
                        self.halting = true;
                    }
                }
                stall
            }
            Target::Uncached(phys) => {
                self.emit_cpu_access(Space::Dram, event::Access::Write, Range::new(phys, len as u32), at);
                self.dram.write_bytes(phys, data).expect("target checked");
                self.post_write(Master::Uncached, len as u32, at.now)
            }
            Target::Sysctl(offset) => self.sysctl_write(at, offset, value),
            Target::MxpPort => self.port_write(at, width, value),
            device @ (Target::Clint(_) | Target::Uart(_)) => {
                self.device_write(device, width, value, at.now);
                0
            }
            Target::Scratchpad(off) => {
                self.emit_cpu_access(Space::Scratchpad, event::Access::Write, Range::new(off, len as u32), at);
                self.mxp.scratchpad_mut()[off as usize..off as usize + len].copy_from_slice(data);
                0
            }
        };
        Ok(stall)
    }

    fn cache_block(&mut self, at: Access, op: CacheOp, addr: u32) -> Result<u64, MemFault> {
        self.catch_up(at);
        match self.target(addr, 1).ok_or(MemFault::Unmapped { addr })? {
            Target::Dram | Target::CachedRom => {
                let line = addr & !(self.line - 1);
                self.emit(Event::CacheMaintenance { op, scope: Scope::Line(line), origin: self.origin(at.pc, at.now) });
                let Some(cache) = self.cache.as_mut() else { return Ok(0) };
                let traffic = cache.maintain(&mut self.dram, op, addr);
                Ok(self.time_cache_traffic(traffic, at.now))
            }
            // Uncached memory and devices have no cache blocks: nothing to do.
            Target::Uncached(_)
            | Target::UncachedRom(_)
            | Target::Sysctl(_)
            | Target::MxpPort
            | Target::Scratchpad(_)
            | Target::Clint(_)
            | Target::Uart(_) => Ok(0),
        }
    }

    fn halt_requested(&self) -> bool {
        mxpsim_detector::invariant!(self.halting == self.halting_now(), "`halting` missed a change");
        self.halting || (S::ENABLED && self.sink.wants_halt())
    }

    fn peek(&self, addr: u32, buf: &mut [u8]) -> Result<(), MemFault> {
        let fault = MemFault::Unmapped { addr };
        match self.target(addr, buf.len() as u32).ok_or(fault)? {
            Target::Dram | Target::CachedRom => match &self.cache {
                Some(cache) => cache.peek(&self.dram, addr, buf).ok_or(fault),
                None => self.dram.read_bytes(addr, buf),
            },
            Target::Uncached(phys) | Target::UncachedRom(phys) => self.dram.read_bytes(phys, buf),
            Target::Scratchpad(off) => {
                buf.copy_from_slice(&self.mxp.scratchpad()[off as usize..off as usize + buf.len()]);
                Ok(())
            }
            Target::Sysctl(_) | Target::MxpPort | Target::Clint(_) | Target::Uart(_) => Err(fault),
        }
    }

    fn poke(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        let fault = MemFault::Unmapped { addr };
        match self.target(addr, data.len() as u32).ok_or(fault)? {
            Target::Dram | Target::CachedRom => match &mut self.cache {
                Some(cache) => cache.poke(&mut self.dram, addr, data).ok_or(fault),
                None => self.dram.load_bytes(addr, data),
            },
            Target::Uncached(phys) | Target::UncachedRom(phys) => self.dram.load_bytes(phys, data),
            Target::Scratchpad(off) => {
                self.mxp.scratchpad_mut()[off as usize..off as usize + data.len()].copy_from_slice(data);
                Ok(())
            }
            Target::Sysctl(_) | Target::MxpPort | Target::Clint(_) | Target::Uart(_) => Err(fault),
        }
    }

    fn interrupts(&mut self, now: u64) -> u32 {
        let Some(clint) = &self.clint else { return 0 };
        self.irq_due = clint.next_rise(now);
        clint.lines(now)
    }

    #[inline(always)]
    fn interrupt_due(&self) -> u64 {
        self.irq_due
    }

    fn mtime(&self, now: u64) -> u64 {
        self.clint.as_ref().map_or(now, |clint| clint.mtime(now))
    }

    /// DRAM's cached loads and stores, as `load` and `store` make them when they catch
    /// nothing up, find the line in the cache's filter and report no event, or one the event
    /// sink takes inline. Not for stores under write-through (never a filter hit) or while
    /// stores are watched.
    fn direct(&self) -> Option<Direct> {
        // With events, only for accesses the sink takes inline (each within one of the
        // events' lines).
        let quiet = match S::ENABLED {
            true => {
                let sink = self.sink.quiet().filter(|q| q.line_shift == self.line.trailing_zeros())?;
                let sink = Quiet { at: sink.at.within(std::mem::offset_of!(Self, sink)), ..sink };
                Some(QuietPath { sink, ctx: Self::CONTEXT })
            }
            false => None,
        };
        let cache = match &self.cache {
            Some(cache) => Some(cache.hits(self.hit_stall)?),
            None => None,
        };
        let stores = self.watched.is_none() && self.cache.as_ref().is_none_or(Cache::writes_back);
        Some(Direct { base: self.map.dram_base, size: self.map.dram_size, stores, cache, quiet })
    }

    fn direct_pointers(&mut self) -> DirectPointers {
        let memory = DirectPointers::memory(&self.mxp_due, self.dram.dram_bytes());
        match &mut self.cache {
            Some(cache) => cache.hit_pointers(memory),
            None => memory,
        }
    }
}

#[cfg(test)]
mod tests;

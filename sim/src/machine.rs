//! The SoC assembled from a configuration and a firmware image, and its run loop: the hart
//! runs until it needs the host (semihosting), stops, or hits a limit.

use crate::config::MachineConfig;
use crate::elf::Image;
use crate::exit_code::{RunEnd, Signal};
use crate::fit::OutsideMemory;
use crate::heap::{HeapEvent, HeapWatch};
use crate::htif::{self, Htif};
use crate::semihost::{self, Semihost};
use crate::symbols::Symbols;
use mxpsim_models::bus::Bus;
use mxpsim_models::cache::stats::CacheStats;
use mxpsim_models::cpu::calls::CallTree;
use mxpsim_models::cpu::{decode, Exit, Hart, LoopKind, Observer, Trap, TrapLoop};
use mxpsim_models::events::EventSink;
use mxpsim_models::memory_system::MemorySystem;
use mxpsim_models::mxp::engine::{MxpError, MxpStats};
use mxpsim_models::stop::StopRequest;
use mxpsim_models::timeline::Recorder;
use serde::Serialize;
use std::fmt;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The firmware exited through semihosting with this status.
    Exited(i32),
    /// The firmware wrote this non-zero value to `tohost` (riscv-tests: 1 = pass, otherwise
    /// the failing test's number shifted left by one, plus one).
    ToHost(u32),
    /// `--max-insns` instructions ran without the firmware exiting.
    InsnLimit { limit: u64, pc: u32 },
    /// The clock reached `--max-cycles` (it stands at `now`) without the firmware exiting.
    CycleLimit { limit: u64, now: u64, pc: u32 },
    /// A signal asked the run to stop (the [`StopRequest`] was set).
    Interrupted { signal: Signal, pc: u32, instructions: u64 },
    /// The firmware trapped and its handler could not get through.
    TrapLoop { first: Trap, first_pc: u32, second: Trap, second_pc: u32, mtvec: u32, kind: LoopKind },
    /// The `wfi` at `pc` waits for an interrupt that nothing can raise (`mie` as it was).
    Asleep { pc: u32, mie: u32 },
    /// The debugger ended the run (`--gdb`), the hart at `pc`.
    Killed { pc: u32 },
    /// The accelerator was given a command it cannot carry out.
    Accelerator(MxpError),
    /// The race checker stopped the run at its first race (`--halt-on-race`).
    HaltedOnRace { pc: u32 },
}

impl Outcome {
    /// How the run ended, as reports and sweeps name it.
    pub fn end(&self) -> RunEnd {
        match self {
            Outcome::Exited(status) => RunEnd::Exited { status: *status },
            Outcome::ToHost(value) => RunEnd::Tohost { value: *value },
            Outcome::InsnLimit { limit, .. } => RunEnd::InstructionLimit { limit: *limit },
            Outcome::CycleLimit { limit, .. } => RunEnd::CycleLimit { limit: *limit },
            Outcome::Interrupted { signal, instructions, .. } => {
                RunEnd::Interrupted { signal: *signal, instructions: *instructions }
            }
            Outcome::TrapLoop { .. } => RunEnd::TrapLoop,
            Outcome::Asleep { .. } => RunEnd::Asleep,
            Outcome::Killed { .. } => RunEnd::Killed,
            Outcome::Accelerator(e) => RunEnd::AcceleratorError { message: e.to_string() },
            Outcome::HaltedOnRace { .. } => RunEnd::HaltedOnRace,
        }
    }
}

/// Where [`Machine::run_for`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The budget is used up (or the host served a call); the run goes on.
    Paused,
    /// The hart is about to execute the instruction at this probed address.
    AtProbe(u32),
    /// The run is over.
    Ended(Outcome),
}

/// What a run did, for `--stats` and `--stats-json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunStats {
    pub instructions: u64,
    pub cycles: u64,
    /// `None` without a cache model.
    pub cache: Option<CacheStats>,
    pub mxp: MxpStats,
}

impl fmt::Display for RunStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:<20} {}", "Instructions", self.instructions)?;
        write!(f, "{:<20} {}", "Cycles", self.cycles)?;
        if let Some(cache) = &self.cache {
            write!(f, "\n{cache}")?;
        }
        let m = &self.mxp;
        if m.vector_instructions + m.dma_transfers + m.syncs > 0 {
            write!(f, "\n{:<20} {}", "MXP Vector Insns", m.vector_instructions)?;
            write!(f, "\n{:<20} {}", "MXP Wavefronts", m.wavefronts)?;
            write!(f, "\n{:<20} {}", "MXP DMA Transfers", m.dma_transfers)?;
            write!(f, "\n{:<20} {}", "MXP DMA Bytes", m.dma_bytes)?;
            write!(f, "\n{:<20} {}", "MXP Syncs", m.syncs)?;
            write!(f, "\n{:<20} {}", "MXP CPU Stalls", m.cpu_stall_cycles)?;
        }
        Ok(())
    }
}

/// What race reports need of a run besides its events: the firmware's allocator calls, and
/// the call contexts the events' [`mxpsim_detector::event::Origin::ctx`] name.
#[derive(Clone, Debug, Default)]
pub struct RunNotes {
    pub heap: Vec<HeapEvent>,
    pub calls: CallTree,
    /// The timeline, when one was recorded ([`Machine::record_timeline`]).
    pub timeline: Option<Recorder>,
}

/// What bounds a run besides the firmware's own end.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_insns: Option<u64>,
    /// Simulated cycles (the CPU's clock).
    pub max_cycles: Option<u64>,
    /// Set from outside (a signal handler) to stop the run; its reason is a signal's number.
    pub stop: StopRequest,
}

/// Instructions per slice of [`Machine::run`]: between slices the stop request is looked at
/// and the caller may show progress (a few milliseconds of simulation).
const SLICE: u64 = 1 << 20;

/// The machine, reporting its memory-interface events to `S` (`()`: nowhere, at no cost).
pub struct Machine<S: EventSink = ()> {
    pub hart: Hart,
    pub bus: MemorySystem<S>,
    pub symbols: Symbols,
    host: Semihost,
    /// The HTIF words, when the firmware has a `tohost` symbol.
    htif: Option<Htif>,
    /// The firmware's allocator calls, when watched ([`Machine::watch_heap`]).
    heap: Option<HeapWatch>,
    limits: Limits,
}

/// A fault the firmware took, for a diagnosis.
#[derive(Clone, Debug)]
pub struct Fault {
    pub pc: u32,
    pub trap: Trap,
    /// The instruction word at `pc`.
    pub raw: Option<u32>,
    /// What is mapped at the trap's address (`mtval`; meaningful for access faults and
    /// misaligned fetches).
    pub region: Option<String>,
}

/// The signature region of an architecture test: the addresses of `begin_signature` and
/// `end_signature` (checked before a run, so that a firmware without them fails at once).
pub fn signature_range(symbols: &Symbols) -> Result<(u32, u32), String> {
    let symbol = |name| symbols.addr_of(name).ok_or_else(|| format!("the firmware has no `{name}` symbol"));
    let (begin, end) = (symbol("begin_signature")?, symbol("end_signature")?);
    if end < begin {
        return Err("`end_signature` lies before `begin_signature`".into());
    }
    Ok((begin, end))
}

impl<S: EventSink> Machine<S> {
    /// Builds the machine of `config` (already validated) and places `image` in it.
    pub fn new(config: &MachineConfig, image: Image, host: Semihost, sink: S) -> Result<Self, OutsideMemory> {
        let map = &config.memory;
        let mut bus =
            MemorySystem::new(map.clone(), &config.cache, config.axi.clone(), &config.mxp, config.clock_hz, sink)
                .with_devices(&config.devices, Box::new(()));
        crate::fit::check(&image, config)?;
        for seg in &image.segments {
            bus.poke(seg.addr, &seg.data).expect("fit::check placed every segment");
        }
        let tohost = image.symbols.addr_of("tohost").filter(|&t| t % 8 == 0 && bus.dram().is_writable(t, 8));
        let htif = tohost.map(|tohost| {
            let fromhost = image.symbols.addr_of("fromhost").filter(|&f| bus.dram().is_writable(f, 8));
            let htif = Htif::new(tohost, fromhost);
            let (start, len) = htif.tohost();
            bus.watch_stores(start, len);
            htif
        });
        let hart = Hart::new(image.entry, &config.cpu);
        Ok(Machine { hart, bus, symbols: image.symbols, host, htif, heap: None, limits: Limits::default() })
    }

    /// The address of the firmware's `tohost` symbol when it cannot serve as one (it is not 8
    /// aligned, writable bytes of memory: a damaged symbol table): its writes end nothing.
    pub fn ignored_tohost(&self) -> Option<u32> {
        self.symbols.addr_of("tohost").filter(|_| self.htif.is_none())
    }

    /// The signature region of an architecture test (the bytes from the symbol
    /// `begin_signature` up to `end_signature`), as the CPU sees it (through the cache), in
    /// Spike's `+signature=` format: one line per `granularity` bytes, each line the bytes
    /// from its last to its first in hex (a 4-byte line is the little-endian word), bytes past
    /// the end as `00`.
    pub fn signature(&self, (begin, end): (u32, u32), granularity: u32) -> Result<String, String> {
        let mut bytes = vec![0; (end - begin) as usize];
        self.bus
            .peek(begin, &mut bytes)
            .map_err(|_| format!("the signature {begin:#010x}..{end:#010x} is not in memory"))?;
        let mut out = String::new();
        for line in bytes.chunks(granularity as usize) {
            let padding = granularity as usize - line.len();
            out.extend(std::iter::repeat_n("00", padding).map(str::to_string));
            out.extend(line.iter().rev().map(|b| format!("{b:02x}")));
            out.push('\n');
        }
        Ok(out)
    }

    /// The faults the firmware took, each with the instruction word at its PC (when it can
    /// be read) and what is mapped at the address it names.
    pub fn faults(&self) -> (Vec<Fault>, u64) {
        let faults = self.hart.faults();
        let list = faults
            .first
            .iter()
            .map(|&(pc, trap)| Fault { pc, trap, raw: self.instruction_at(pc), region: self.bus.region_at(trap.tval) })
            .collect();
        (list, faults.total)
    }

    /// The instruction at `pc` as the hart would fetch it.
    fn instruction_at(&self, pc: u32) -> Option<u32> {
        decode::read_instruction(|addr, buf| self.bus.peek(addr, buf).is_ok(), pc)
    }

    /// Records the firmware's heap blocks from now on (for race reports).
    pub fn watch_heap(&mut self) {
        let map = self.bus.map().clone();
        let scratchpad = self.bus.mxp().config().scratchpad;
        self.heap = Some(HeapWatch::install(&self.symbols, map, scratchpad, &mut self.hart));
    }

    /// The allocator calls seen since [`Machine::watch_heap`], and the call contexts.
    pub fn notes(&mut self) -> RunNotes {
        RunNotes {
            heap: self.heap.take().map_or_else(Vec::new, HeapWatch::into_events),
            calls: self.hart.calls().clone(),
            timeline: self.bus.take_timeline(),
        }
    }

    /// Bounds the runs from now on.
    pub fn set_limits(&mut self, limits: Limits) {
        let max_cycles = limits.max_cycles.unwrap_or(u64::MAX);
        self.hart.set_cycle_limit(max_cycles);
        self.bus.set_limits(max_cycles, limits.stop.clone());
        self.host.stop_when_console_closes(limits.stop.clone());
        self.limits = limits;
    }

    /// Runs until the firmware exits or a limit is reached; `between` is called between
    /// slices of the run (to show progress).
    pub fn run<O: Observer>(&mut self, obs: &mut O, mut between: impl FnMut(&Self)) -> Outcome {
        let outcome = loop {
            match self.run_for(obs, SLICE) {
                Progress::Ended(outcome) => break outcome,
                _ => between(self),
            }
        };
        self.flush_output();
        outcome
    }

    /// Flushes the firmware's output (an error is kept for [`Machine::console_error`]).
    pub fn flush_output(&mut self) {
        self.host.flush();
    }

    /// The first error writing the firmware's console during the run, if any.
    pub fn console_error(&mut self) -> Option<std::io::Error> {
        self.host.console_error()
    }

    /// How the run ends now, if a limit or the stop request ends it.
    fn limit_reached(&self) -> Option<Outcome> {
        let pc = self.hart.pc;
        if let Some(reason) = self.limits.stop.reason() {
            return Some(Outcome::Interrupted { signal: Signal::of(reason), pc, instructions: self.hart.steps });
        }
        match (self.limits.max_insns, self.limits.max_cycles) {
            (Some(limit), _) if self.hart.steps >= limit => Some(Outcome::InsnLimit { limit, pc }),
            (_, Some(limit)) if self.hart.now >= limit => Some(Outcome::CycleLimit { limit, now: self.hart.now, pc }),
            _ => None,
        }
    }

    /// Runs at most `budget` instructions (and traps), stopping earlier when the run ends
    /// (its limits included) or the hart reaches a probe (a breakpoint, say: the heap watch
    /// has seen its own probes by then).
    pub fn run_for<O: Observer>(&mut self, obs: &mut O, budget: u64) -> Progress {
        if let Some(outcome) = self.limit_reached() {
            return Progress::Ended(outcome);
        }
        let budget = self.limits.max_insns.map_or(budget, |limit| budget.min(limit - self.hart.steps));
        let ended = |outcome| Progress::Ended(outcome);
        match self.hart.run(&mut self.bus, obs, budget) {
            Exit::Budget => Progress::Paused,
            Exit::Probe => {
                if let Some(heap) = &mut self.heap {
                    heap.on_probe(&mut self.hart, &self.bus);
                }
                Progress::AtProbe(self.hart.pc)
            }
            Exit::Semihost => {
                let (op, arg) = (self.hart.x[10], self.hart.x[11]);
                match self.host.call(&mut self.bus, op, arg, self.hart.now) {
                    semihost::Outcome::Return(value) => {
                        self.hart.x[10] = value;
                        Progress::Paused
                    }
                    semihost::Outcome::Exit(status) => ended(Outcome::Exited(status)),
                }
            }
            Exit::Halt => {
                let console = self.bus.take_console();
                if !console.is_empty() {
                    self.host.console(&console);
                }
                for (addr, len) in self.bus.take_watched_stores() {
                    match self.htif.as_mut().and_then(|htif| htif.stored(&mut self.bus, addr, len)) {
                        Some(htif::Action::Console(byte)) => self.host.console(&[byte]),
                        Some(htif::Action::Exit(value)) => return ended(Outcome::ToHost(value)),
                        None => {}
                    }
                }
                if let Some(e) = self.bus.mxp_error() {
                    return ended(Outcome::Accelerator(e.clone()));
                }
                if let Some(stop) = self.bus.stop() {
                    let outcome = self.limit_reached();
                    return ended(
                        outcome.unwrap_or_else(|| panic!("the memory system stopped ({stop:?}) at no limit")),
                    );
                }
                if self.bus.sink_wants_halt() {
                    return ended(Outcome::HaltedOnRace { pc: self.hart.pc });
                }
                Progress::Paused
            }
            Exit::Asleep { pc, mie } => ended(Outcome::Asleep { pc, mie }),
            Exit::CycleLimit => ended(self.limit_reached().expect("the hart stops at the cycle limit")),
            Exit::TrapLoop(what) => {
                let TrapLoop { first, first_pc, second, second_pc, kind } = *what;
                let mtvec = self.hart.csr.trap_vector();
                ended(Outcome::TrapLoop { first, first_pc, second, second_pc, mtvec, kind })
            }
        }
    }

    /// The event sink, with everything the run reported.
    pub fn into_sink(self) -> S {
        self.bus.into_sink()
    }

    pub fn stats(&self) -> RunStats {
        RunStats {
            instructions: self.hart.retired(),
            cycles: self.hart.now,
            cache: self.bus.cache().map(|c| c.stats.clone()),
            mxp: self.bus.mxp().stats.clone(),
        }
    }
}

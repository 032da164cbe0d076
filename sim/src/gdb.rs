//! `--gdb PORT`: a GDB remote-serial-protocol stub (the `gdbstub` crate), listening on the
//! loopback interface, that waits for a debugger before the first instruction.
//!
//! What the debugger sees:
//! * the integer registers, the PC and the CSRs (a target description names every CSR the
//!   hart implements, so `info registers csr`, `p $mstatus` work), read and written whatever
//!   the hart's privilege mode;
//! * memory as the CPU sees it: through the data cache (a dirty line's bytes, not DRAM's);
//!   DRAM as the accelerator sees it is the uncached alias (`x/4xw 0xc0000000+…`);
//! * software breakpoints (hart probes: the code is never patched), single steps, and write
//!   watchpoints (the run goes an instruction at a time while one is set, and stops after the
//!   instruction that changed the watched bytes);
//! * `monitor races` (the races found so far), `monitor cache ADDR` (the state of the line
//!   holding ADDR: set, way, dirty bytes, data), `monitor help`.
//!
//! With `--halt-on-race` the run stops in the debugger (SIGTRAP) at the instruction whose
//! access revealed the first race, after the races are listed on standard error; continuing
//! from there ends the run. Ctrl-C in the debugger stops the run where it is.

use crate::event_trace::Recording;
use crate::exit_code::{RunEnd, RACES_FOUND};
use crate::machine::{Machine, Outcome, Progress};
use crate::race_check::RaceCheck;
use crate::symbols::Symbols;
use gdbstub::common::Signal;
use gdbstub::conn::ConnectionExt;
use gdbstub::stub::{run_blocking, DisconnectReason, GdbStub, SingleThreadStopReason};
use gdbstub::target::ext::base::single_register_access::{SingleRegisterAccess, SingleRegisterAccessOps};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadBase, SingleThreadResume, SingleThreadResumeOps, SingleThreadSingleStep, SingleThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwWatchpoint, HwWatchpointOps, SwBreakpoint, SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::monitor_cmd::{outputln, ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::ext::target_description_xml_override::{
    TargetDescriptionXmlOverride, TargetDescriptionXmlOverrideOps,
};
use gdbstub::target::{Target, TargetError, TargetResult};
use gdbstub_arch::riscv::reg::id::RiscvRegId;
use gdbstub_arch::riscv::reg::RiscvCoreRegs;
use gdbstub_arch::riscv::Riscv32;
use mxpsim_detector::race::Report;
use mxpsim_models::bus::Bus;
use mxpsim_models::cpu::csr::{self, Priv};
use mxpsim_models::cpu::decode::REG_NAMES;
use mxpsim_models::events::EventSink;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::net::{TcpListener, TcpStream};

/// Instructions run between two looks at the connection (for Ctrl-C) while continuing.
const SLICE: u64 = 1 << 16;
/// GDB's register number of CSR 0 in the RISC-V target description.
const CSR_REGNUM_BASE: usize = 65;

/// The race findings a sink has so far, for `monitor races` and the halt on a race.
pub trait RacesSoFar {
    fn races_so_far(&self) -> Option<&Report>;
}

impl RacesSoFar for () {
    fn races_so_far(&self) -> Option<&Report> {
        None
    }
}

impl RacesSoFar for RaceCheck {
    fn races_so_far(&self) -> Option<&Report> {
        Some(RaceCheck::races_so_far(self))
    }
}

impl<W: std::io::Write> RacesSoFar for Recording<W> {
    fn races_so_far(&self) -> Option<&Report> {
        self.race.as_ref().map(RaceCheck::races_so_far)
    }
}

/// Listens on 127.0.0.1:`port` (0: any free port) and says where on standard error.
pub fn listen(port: u16) -> std::io::Result<TcpListener> {
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    crate::diag!("mxpsim: waiting for GDB on {} (target remote {0})", listener.local_addr()?);
    Ok(listener)
}

/// Waits for the debugger on `listener`, then runs the machine under its control until the
/// run ends: its outcome; `None` when the debugger left first (a detach, or a connection
/// that broke or carried what the stub cannot read: said in a warning), for the caller to
/// run the rest without it; `Err` when mxpsim's side of the session failed. (A broken
/// connection ended the run with an error, and the statistics and race report it had were
/// lost.)
pub fn serve<S: EventSink + RacesSoFar>(
    listener: TcpListener,
    machine: &mut Machine<S>,
) -> Result<Option<Outcome>, String> {
    let (stream, _) = listener.accept().map_err(|e| format!("--gdb: cannot accept a connection: {e}"))?;
    // Small packets go out at once (the protocol is a ping-pong of tiny messages).
    let _ = stream.set_nodelay(true);
    let mut session = Session::new(machine);
    let stub = GdbStub::new(stream);
    let reason = stub.run_blocking::<EventLoop<Session<'_, S>>>(&mut session);
    if let Some(outcome) = session.ended.take() {
        return Ok(Some(outcome));
    }
    match reason {
        Ok(DisconnectReason::Kill) => Ok(Some(Outcome::Killed { pc: session.machine.hart.pc })),
        Ok(_) => Ok(None),
        // mxpsim's own side of the session failed: not the debugger's doing.
        Err(e) if e.is_target_error() => Err(format!("--gdb: {e}")),
        Err(e) => {
            crate::diag!("mxpsim: warning: --gdb: the debugger's session ended without a detach ({e}); the run goes on without it");
            Ok(None)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Continue,
    Step,
}

/// A watched byte range and its bytes as last seen.
struct Watch {
    addr: u32,
    len: u32,
    last: Vec<u8>,
}

struct Session<'m, S: EventSink> {
    machine: &'m mut Machine<S>,
    mode: Mode,
    breakpoints: BTreeSet<u32>,
    watches: Vec<Watch>,
    /// How the run ended, once it has.
    ended: Option<Outcome>,
}

impl<'m, S: EventSink + RacesSoFar> Session<'m, S> {
    fn new(machine: &'m mut Machine<S>) -> Self {
        Session { machine, mode: Mode::Continue, breakpoints: BTreeSet::new(), watches: Vec::new(), ended: None }
    }

    /// Memory as the CPU sees it, byte by byte up to the first unmapped one.
    fn peek(&self, addr: u32, len: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(len);
        for a in (0..len as u32).map(|i| addr.wrapping_add(i)) {
            let mut b = [0];
            if self.machine.bus.peek(a, &mut b).is_err() {
                break;
            }
            bytes.push(b[0]);
        }
        bytes
    }

    /// The first watched range whose bytes changed since last seen (and now remembered).
    fn changed_watch(&mut self) -> Option<u32> {
        for i in 0..self.watches.len() {
            let (addr, len) = (self.watches[i].addr, self.watches[i].len);
            let now = self.peek(addr, len as usize);
            if now != self.watches[i].last {
                self.watches[i].last = now;
                return Some(addr);
            }
        }
        None
    }

    /// Runs one slice in the current mode: the stop to report, if any.
    fn advance(&mut self) -> Option<SingleThreadStopReason<u32>> {
        if let Some(outcome) = &self.ended {
            return Some(SingleThreadStopReason::Exited(exit_code_of(outcome)));
        }
        let budget = if self.mode == Mode::Step || !self.watches.is_empty() { 1 } else { SLICE };
        let progress = self.machine.run_for(&mut (), budget);
        match progress {
            Progress::Ended(outcome) => {
                let stop = match outcome {
                    Outcome::HaltedOnRace { .. } => {
                        let _ = crate::diag::write(&format!(
                            "mxpsim: the run stopped at the first race (--halt-on-race):\n{}",
                            self.races_text()
                        ));
                        SingleThreadStopReason::Signal(Signal::SIGTRAP)
                    }
                    ref other => SingleThreadStopReason::Exited(exit_code_of(other)),
                };
                self.machine.flush_output();
                self.ended = Some(outcome);
                Some(stop)
            }
            Progress::AtProbe(pc) if self.breakpoints.contains(&pc) => Some(SingleThreadStopReason::SwBreak(())),
            Progress::AtProbe(_) | Progress::Paused => {
                if let Some(addr) = self.changed_watch() {
                    return Some(SingleThreadStopReason::Watch { tid: (), kind: WatchKind::Write, addr });
                }
                (self.mode == Mode::Step).then_some(SingleThreadStopReason::DoneStep)
            }
        }
    }

    fn races_text(&self) -> String {
        let symbols: &Symbols = &self.machine.symbols;
        let Some(report) = self.machine.bus.sink().races_so_far() else {
            return "no race check in this run (--race-check)\n".into();
        };
        let mut text = format!("{} distinct race(s) so far\n", report.len());
        for (i, entry) in report.entries().enumerate() {
            let (a, b) = (&entry.first.a, &entry.first.b);
            let _ = writeln!(
                text,
                "{}. {}/{}: A at {} (cycle {}), B at {} (cycle {}), {} occurrence(s)",
                i + 1,
                a.id.kind.short(),
                b.id.kind.short(),
                symbols.describe(a.origin.pc),
                a.origin.cycle,
                symbols.describe(b.origin.pc),
                b.origin.cycle,
                entry.occurrences
            );
        }
        text
    }

    fn cache_text(&self, arg: &str) -> String {
        let Some(addr) = parse_address(arg) else {
            return format!("monitor cache: `{arg}` is not an address (hexadecimal with 0x, or decimal)\n");
        };
        let Some(cache) = self.machine.bus.cache() else {
            return "no cache model in this run (--cache off)\n".into();
        };
        let state = cache.line_state(addr);
        let mut text = format!("line {:#010x}, set {}: ", state.line, state.set);
        match state.held {
            None => text.push_str("not in the cache\n"),
            Some(held) => {
                let dirty = if held.dirty.is_empty() {
                    "clean".to_string()
                } else {
                    format!("dirty bytes {}", ranges(&held.dirty))
                };
                let _ = writeln!(text, "way {}, {dirty}", held.way);
                for (i, chunk) in held.data.chunks(16).enumerate() {
                    let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
                    let _ = writeln!(text, "  {:#010x}: {}", state.line + 16 * i as u32, hex.join(" "));
                }
            }
        }
        text
    }
}

/// `0x…` hexadecimal or decimal.
fn parse_address(text: &str) -> Option<u32> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Sorted offsets as ranges: `0-3, 8`.
fn ranges(offsets: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < offsets.len() {
        let start = offsets[i];
        while i + 1 < offsets.len() && offsets[i + 1] == offsets[i] + 1 {
            i += 1;
        }
        parts.push(if offsets[i] == start { format!("{start}") } else { format!("{start}-{}", offsets[i]) });
        i += 1;
    }
    parts.join(", ")
}

/// The status GDB is told when the run ends: the process status mxpsim exits with (a halt
/// on a race: races were found).
fn exit_code_of(outcome: &Outcome) -> u8 {
    let end: RunEnd = outcome.end();
    match end {
        RunEnd::HaltedOnRace => RACES_FOUND,
        end => end.status().unwrap_or_else(|failure| failure.code()),
    }
}

/// The target description: the integer registers and the PC (`org.gnu.gdb.riscv.cpu`) and
/// every CSR the hart implements (`org.gnu.gdb.riscv.csr`, GDB number 65 + CSR number).
fn target_xml() -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n\
         <architecture>riscv:rv32</architecture>\n<feature name=\"org.gnu.gdb.riscv.cpu\">\n",
    );
    for (i, name) in REG_NAMES.iter().enumerate() {
        let kind = match i {
            1 => "code_ptr",
            2 | 3 | 4 | 8 => "data_ptr",
            _ => "int",
        };
        let _ = writeln!(xml, "<reg name=\"{name}\" bitsize=\"32\" type=\"{kind}\" regnum=\"{i}\"/>");
    }
    xml.push_str("<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"32\"/>\n</feature>\n");
    xml.push_str("<feature name=\"org.gnu.gdb.riscv.csr\">\n");
    for number in 0..4096u16 {
        if let Some(name) = csr::name(number) {
            let regnum = CSR_REGNUM_BASE + number as usize;
            let _ =
                writeln!(xml, "<reg name=\"{name}\" bitsize=\"32\" type=\"int\" regnum=\"{regnum}\" group=\"csr\"/>");
        }
    }
    xml.push_str("</feature>\n</target>\n");
    xml
}

impl<S: EventSink + RacesSoFar> Target for Session<'_, S> {
    type Arch = Riscv32;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, Self::Arch, Self::Error> {
        BaseOps::SingleThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }

    fn support_target_description_xml_override(&mut self) -> Option<TargetDescriptionXmlOverrideOps<'_, Self>> {
        Some(self)
    }

    // The hart's probes stop it before a breakpoint's instruction: GDB need not patch code.
    fn guard_rail_implicit_sw_breakpoints(&self) -> bool {
        true
    }
}

impl<S: EventSink + RacesSoFar> SingleThreadBase for Session<'_, S> {
    fn read_registers(&mut self, regs: &mut RiscvCoreRegs<u32>) -> TargetResult<(), Self> {
        regs.x = self.machine.hart.x;
        regs.pc = self.machine.hart.pc;
        Ok(())
    }

    fn write_registers(&mut self, regs: &RiscvCoreRegs<u32>) -> TargetResult<(), Self> {
        self.machine.hart.x = regs.x;
        self.machine.hart.x[0] = 0;
        self.machine.hart.pc = regs.pc;
        Ok(())
    }

    fn read_addrs(&mut self, start: u32, data: &mut [u8]) -> TargetResult<usize, Self> {
        let bytes = self.peek(start, data.len());
        data[..bytes.len()].copy_from_slice(&bytes);
        Ok(bytes.len())
    }

    fn write_addrs(&mut self, start: u32, data: &[u8]) -> TargetResult<(), Self> {
        self.machine.bus.poke(start, data).map_err(|_| TargetError::NonFatal)?;
        self.machine.hart.code_changed(start, data.len() as u32);
        Ok(())
    }

    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, (), Self>> {
        Some(self)
    }

    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl<S: EventSink + RacesSoFar> SingleRegisterAccess<()> for Session<'_, S> {
    fn read_register(&mut self, _: (), reg: RiscvRegId<u32>, buf: &mut [u8]) -> TargetResult<usize, Self> {
        let hart = &self.machine.hart;
        let value = match reg {
            RiscvRegId::Gpr(i) => hart.x[i as usize & 31],
            RiscvRegId::Pc => hart.pc,
            RiscvRegId::Csr(n) => {
                let mtime = self.machine.bus.mtime(hart.now);
                hart.csr.debug_read(n, hart.counters(mtime)).map_err(|_| TargetError::NonFatal)?
            }
            RiscvRegId::Priv => {
                buf[0] = match hart.csr.privilege {
                    Priv::User => 0,
                    Priv::Machine => 3,
                };
                return Ok(1);
            }
            _ => return Err(TargetError::NonFatal),
        };
        buf[..4].copy_from_slice(&value.to_le_bytes());
        Ok(4)
    }

    fn write_register(&mut self, _: (), reg: RiscvRegId<u32>, val: &[u8]) -> TargetResult<(), Self> {
        let value = u32::from_le_bytes(val.get(..4).and_then(|b| b.try_into().ok()).ok_or(TargetError::NonFatal)?);
        let mtime = self.machine.bus.mtime(self.machine.hart.now);
        let hart = &mut self.machine.hart;
        match reg {
            RiscvRegId::Gpr(0) => {}
            RiscvRegId::Gpr(i) => hart.x[i as usize & 31] = value,
            RiscvRegId::Pc => hart.pc = value,
            RiscvRegId::Csr(n) => {
                hart.csr.debug_write(n, value, hart.counters(mtime)).map_err(|_| TargetError::NonFatal)?;
                hart.interrupts_changed(); // mie or mstatus.MIE may now let one in
            }
            _ => return Err(TargetError::NonFatal),
        }
        Ok(())
    }
}

impl<S: EventSink + RacesSoFar> SingleThreadResume for Session<'_, S> {
    fn resume(&mut self, signal: Option<Signal>) -> Result<(), Self::Error> {
        if signal.is_some() {
            return Err("mxpsim cannot deliver a signal to the firmware".into());
        }
        self.mode = Mode::Continue;
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl<S: EventSink + RacesSoFar> SingleThreadSingleStep for Session<'_, S> {
    fn step(&mut self, signal: Option<Signal>) -> Result<(), Self::Error> {
        if signal.is_some() {
            return Err("mxpsim cannot deliver a signal to the firmware".into());
        }
        self.mode = Mode::Step;
        Ok(())
    }
}

impl<S: EventSink + RacesSoFar> Breakpoints for Session<'_, S> {
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

impl<S: EventSink + RacesSoFar> SwBreakpoint for Session<'_, S> {
    fn add_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        if self.breakpoints.insert(addr) {
            self.machine.hart.add_probe(addr);
        }
        Ok(true)
    }

    fn remove_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        if !self.breakpoints.remove(&addr) {
            return Ok(false);
        }
        self.machine.hart.remove_probe(addr);
        Ok(true)
    }
}

impl<S: EventSink + RacesSoFar> HwWatchpoint for Session<'_, S> {
    fn add_hw_watchpoint(&mut self, addr: u32, len: u32, kind: WatchKind) -> TargetResult<bool, Self> {
        // Only writes can be seen (as changed bytes); GDB falls back or refuses the others.
        if kind != WatchKind::Write || len == 0 {
            return Ok(false);
        }
        let last = self.peek(addr, len as usize);
        self.watches.push(Watch { addr, len, last });
        Ok(true)
    }

    fn remove_hw_watchpoint(&mut self, addr: u32, len: u32, kind: WatchKind) -> TargetResult<bool, Self> {
        let found = self.watches.iter().position(|w| w.addr == addr && w.len == len);
        match found {
            Some(i) if kind == WatchKind::Write => {
                self.watches.remove(i);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

impl<S: EventSink + RacesSoFar> MonitorCmd for Session<'_, S> {
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), Self::Error> {
        let cmd = String::from_utf8_lossy(cmd);
        let mut words = cmd.split_whitespace();
        let text = match (words.next(), words.next()) {
            (Some("races"), None) => self.races_text(),
            (Some("cache"), Some(addr)) => self.cache_text(addr),
            _ => "monitor commands:\n  races        the races found so far (--race-check)\n  cache ADDR   \
                  the data cache's line holding ADDR: set, way, dirty bytes, data\n"
                .into(),
        };
        for line in text.lines() {
            outputln!(out, "{line}");
        }
        Ok(())
    }
}

impl<S: EventSink + RacesSoFar> TargetDescriptionXmlOverride for Session<'_, S> {
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::NonFatal);
        }
        let xml = target_xml();
        let bytes = xml.as_bytes();
        let start = (offset as usize).min(bytes.len());
        let n = (bytes.len() - start).min(length).min(buf.len());
        buf[..n].copy_from_slice(&bytes[start..start + n]);
        Ok(n)
    }
}

/// The blocking event loop: runs slices, looking at the connection between them.
struct EventLoop<S>(std::marker::PhantomData<S>);

impl<'m, S: EventSink + RacesSoFar> run_blocking::BlockingEventLoop for EventLoop<Session<'m, S>>
where
    Session<'m, S>: Target<Arch = Riscv32, Error = String>,
{
    type Target = Session<'m, S>;
    type Connection = TcpStream;
    type StopReason = SingleThreadStopReason<u32>;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut Self::Target,
        conn: &mut Self::Connection,
    ) -> Result<run_blocking::Event<Self::StopReason>, run_blocking::WaitForStopReasonError<String, std::io::Error>>
    {
        loop {
            if target.mode == Mode::Continue && conn.peek().map(|b| b.is_some()).unwrap_or(true) {
                let byte = conn.read().map_err(run_blocking::WaitForStopReasonError::Connection)?;
                return Ok(run_blocking::Event::IncomingData(byte));
            }
            if let Some(stop) = target.advance() {
                return Ok(run_blocking::Event::TargetStopped(stop));
            }
        }
    }

    fn on_interrupt(_target: &mut Self::Target) -> Result<Option<Self::StopReason>, String> {
        Ok(Some(SingleThreadStopReason::Signal(Signal::SIGINT)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_description_names_the_csrs_at_gdbs_numbers() {
        let xml = target_xml();
        assert!(xml.contains("<reg name=\"ra\" bitsize=\"32\" type=\"code_ptr\" regnum=\"1\"/>"));
        assert!(xml.contains("<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"32\"/>"));
        // mstatus is CSR 0x300: GDB register 65 + 768.
        assert!(xml.contains("<reg name=\"mstatus\" bitsize=\"32\" type=\"int\" regnum=\"833\" group=\"csr\"/>"));
    }

    #[test]
    fn dirty_offsets_print_as_ranges_and_addresses_parse_both_ways() {
        assert_eq!(ranges(&[0, 1, 2, 3, 8, 10, 11]), "0-3, 8, 10-11");
        assert_eq!(
            (parse_address("0x80000010"), parse_address("16"), parse_address("x")),
            (Some(0x8000_0010), Some(16), None)
        );
    }
}

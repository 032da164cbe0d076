//! The `mxpsim` command line.

use crate::config::{parse_size, MachineConfig};
use crate::elf;
use crate::event_trace::{Frame, TraceError, TraceReader, TraceWriter};
use crate::exit_code::Failure;
use crate::machine::{Machine, Outcome, RunNotes};
use crate::race_check::{Findings, RaceCheck};
use crate::report;
use crate::semihost::Semihost;
use crate::source_map::SourceMap;
use crate::trace::Tracer;
use clap::{Args, Parser, Subcommand};
use mxpsim_detector::event::CacheGeometry;
use mxpsim_detector::Config as DetectorConfig;
use mxpsim_models::cpu::calls::CallTree;
use mxpsim_models::cpu::decode::disassemble;
use mxpsim_models::cpu::Cause;
use mxpsim_models::events::EventSink;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mxpsim",
    version,
    about = "Simulate a RISC-V SoC with a non-coherent accelerator and run firmware on it",
    long_about = "mxpsim simulates a small SoC (an RV32IM CPU, memory and, in later versions, a \
                  write-back data cache and a VectorBlox-MXP-style vector/DMA accelerator) and \
                  runs unmodified firmware ELF files on it.\n\n\
                  The firmware's console (RISC-V semihosting, as picolibc's --oslib=semihost \
                  uses it) is mxpsim's standard output and error, and mxpsim exits with the \
                  firmware's exit status.\n\n\
                  Example:\n  mxpsim run firmware/bin/tests/hello.elf",
    after_help = "Exit status: the firmware's own, or one of mxpsim's: 2 bad command line; \
                  101 unreadable file; 102 not an ELF file; 103 64-bit ELF; 104 big-endian ELF; \
                  105 not RV32IM/ilp32 or not an executable; 106 nothing to load; 107 image \
                  outside memory; 110 invalid configuration; 120 instruction limit reached; \
                  121 trap with no working handler; 122 output file error; 123 bad accelerator \
                  command; 124 unreadable event trace; 66 races found (--race-check, detect)."
)]
struct Cli {
    /// More log output on standard error (-v info, -vv debug, -vvv trace). RUST_LOG, when
    /// set, overrides it (e.g. RUST_LOG=mxpsim_models=debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a firmware ELF file until it exits (with --race-check: and report data races).
    Run(RunArgs),
    /// Run the race detector on an event trace recorded with `run --record-trace`.
    Detect(DetectArgs),
    /// Run firmware over a grid of cache configurations, race checker on, in parallel, and
    /// tabulate cycles, miss rate, write-backs and races side by side.
    Sweep(SweepArgs),
    /// Show the machine configuration that `run` would use.
    Config(ConfigArgs),
}

/// Options that define the machine (shared by `run` and `config`).
#[derive(Args)]
struct MachineArgs {
    /// Machine description (TOML: [memory], [cache], [axi], [cpu]; see `mxpsim config
    /// --dump` for every field and its default).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Cache overrides: `off`, or key=value pairs, e.g.
    /// size=32K,line=64,ways=4,policy=lru,write=back,wb=line (keys: size, line, ways
    /// (number or full), policy (lru, fifo, plru, random), write (back, through), wb (line,
    /// byte), hit, wbuf, seed).
    #[arg(long, value_name = "SPEC")]
    cache: Option<String>,

    /// DRAM size, e.g. 64M, 128M, 0x800000.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    dram_size: Option<u32>,
}

impl MachineArgs {
    /// The effective configuration: defaults, then the file, then the overrides.
    fn machine(&self) -> Result<MachineConfig, String> {
        let mut config = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                MachineConfig::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => MachineConfig::default(),
        };
        if let Some(spec) = &self.cache {
            config.apply_cache_overrides(spec).map_err(|e| e.to_string())?;
        }
        if let Some(size) = self.dram_size {
            config.memory.dram_size = size;
        }
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }
}

#[derive(Args)]
struct ConfigArgs {
    /// Print the effective machine as a TOML file (usable with --config).
    #[arg(long, required = true)]
    dump: bool,

    #[command(flatten)]
    machine: MachineArgs,
}

#[derive(Args)]
struct RunArgs {
    /// The firmware: a statically linked RV32IM (ilp32) ELF executable.
    firmware: PathBuf,

    /// Arguments passed to the firmware (its argv[1..], via semihosting).
    #[arg(last = true)]
    args: Vec<String>,

    /// Stop after N instructions (exit status 120) instead of running forever.
    #[arg(long, value_name = "N")]
    max_insns: Option<u64>,

    /// Write one line per executed instruction (PC, word, disassembly, register written)
    /// and per trap to FILE.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,

    /// Print run statistics (instructions, cycles, cache) on standard error at the end.
    #[arg(long)]
    stats: bool,

    /// Write the run statistics as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,

    /// Record the memory-interface event stream (what the race detector sees) to FILE, in
    /// mxpsim's compact trace format.
    #[arg(long, value_name = "FILE")]
    record_trace: Option<PathBuf>,

    /// Detect data races between the CPU (and its cache) and the accelerator while running;
    /// exit status 66 when any is found.
    #[arg(long)]
    race_check: bool,

    /// With --race-check: stop at the first race.
    #[arg(long, requires = "race_check")]
    halt_on_race: bool,

    #[command(flatten)]
    report: ReportArgs,

    #[command(flatten)]
    machine: MachineArgs,
}

/// How races are reported (shared by `run --race-check` and `detect`).
#[derive(Args)]
struct ReportArgs {
    /// Also report CPU uncached accesses racing with the cache's own line fills and
    /// write-backs (the paper's footnote 5; off by default).
    #[arg(long)]
    race_uncached: bool,

    /// Report format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    report_format: ReportFormat,

    /// Write the race report to FILE instead of standard error.
    #[arg(long, value_name = "FILE")]
    report_file: Option<PathBuf>,

    /// Frames per stack in race reports at most.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..))]
    stack_depth: u16,

    /// Which source files are the firmware's own code (repeatable; e.g. 'src/**', 'app/*.c'):
    /// replaces the default rule (everything but the C library, crt0 and the SDK).
    #[arg(long, value_name = "GLOB", value_parser = parse_glob)]
    user_code: Vec<globset::Glob>,
}

fn parse_glob(text: &str) -> Result<globset::Glob, String> {
    globset::Glob::new(text).map_err(|e| e.to_string())
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
    Human,
    Json,
}

#[derive(Args)]
struct SweepArgs {
    /// Firmware ELF files.
    #[arg(required = true)]
    programs: Vec<PathBuf>,

    /// Line sizes, e.g. --line 16,32,64.
    #[arg(long, value_delimiter = ',')]
    line: Vec<String>,
    /// Write-back granularities: line, byte.
    #[arg(long, value_delimiter = ',')]
    wb: Vec<String>,
    /// Cache sizes, e.g. 4K,16K.
    #[arg(long, value_delimiter = ',')]
    size: Vec<String>,
    /// Associativities (numbers or full).
    #[arg(long, value_delimiter = ',')]
    ways: Vec<String>,
    /// Replacement policies: lru, fifo, plru, random.
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// Write policies: back, through.
    #[arg(long, value_delimiter = ',')]
    write: Vec<String>,

    /// The grid as a TOML file of lists, e.g. `line = [16, 32, 64]` and `wb = ["line",
    /// "byte"]` (keys line, wb, size, ways, policy, write); command-line lists add to it.
    #[arg(long, value_name = "FILE")]
    grid: Option<PathBuf>,

    /// Stop each run after N instructions.
    #[arg(long, value_name = "N", default_value_t = 1_000_000_000)]
    max_insns: u64,

    /// Also write the table as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// Also write the table as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// The base machine (the grid varies its cache).
    #[command(flatten)]
    machine: MachineArgs,
}

#[derive(Args)]
struct DetectArgs {
    /// The trace, as written by `mxpsim run --record-trace`.
    trace: PathBuf,

    /// The firmware ELF the trace was recorded from: names functions, source lines and
    /// variables in the report.
    #[arg(long, value_name = "FW.elf")]
    elf: Option<PathBuf>,

    #[command(flatten)]
    report: ReportArgs,
}

/// Parses the command line, runs it, and returns the process's exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse_from(expand_short_form(std::env::args_os()));
    init_logging(cli.verbose);
    let status = match cli.command {
        Command::Run(args) => run(args),
        Command::Sweep(args) => match sweep(&args) {
            Ok(status) => status,
            Err(Fatal(failure, message)) => fail(failure, message),
        },
        Command::Detect(args) => match detect(&args) {
            Ok(status) => status,
            Err(Fatal(failure, message)) => fail(failure, message),
        },
        Command::Config(args) => match args.machine.machine() {
            Ok(config) => {
                print!("{}", config.to_toml());
                0
            }
            Err(e) => fail(Failure::InvalidConfig, e),
        },
    };
    ExitCode::from(status)
}

/// `mxpsim --race-check FW.elf …` is short for `mxpsim run --race-check FW.elf …`.
fn expand_short_form(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut args: Vec<_> = args.collect();
    if args.get(1).is_some_and(|a| a == "--race-check") {
        args.insert(1, "run".into());
    }
    args
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // No timestamps: output must not depend on the host's clock. Colour only on a terminal.
    let ansi = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt().with_env_filter(filter).without_time().with_ansi(ansi).with_writer(io::stderr).init();
}

fn fail(failure: Failure, message: impl std::fmt::Display) -> u8 {
    eprintln!("mxpsim: error: {message}");
    failure.code()
}

/// One of mxpsim's own failures: its exit status and its message.
struct Fatal(Failure, String);

fn io_error(path: &Path) -> impl Fn(io::Error) -> Fatal + '_ {
    move |e| Fatal(Failure::HostIo, format!("{}: {e}", path.display()))
}

fn create(path: &Path) -> Result<BufWriter<File>, Fatal> {
    File::create(path).map(BufWriter::new).map_err(io_error(path))
}

fn run(args: RunArgs) -> u8 {
    match try_run(&args) {
        Ok(status) => status,
        Err(Fatal(failure, message)) => fail(failure, message),
    }
}

fn try_run(args: &RunArgs) -> Result<u8, Fatal> {
    let config = args.machine.machine().map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let path = args.firmware.display().to_string();
    let image = elf::load(&args.firmware).map_err(|e| Fatal(e.failure(), format!("{path}: {e}")))?;
    let source = SourceMap::new(image.symbols.clone(), Some(&args.firmware));
    let cmdline = std::iter::once(path).chain(args.args.iter().cloned()).collect::<Vec<_>>().join(" ");
    let host = Semihost::new(Box::new(BufWriter::new(io::stdout())), Box::new(io::stderr()), cmdline, config.clock_hz);
    let race = match args.race_check {
        true => Some(race_checker(&args.report, config.geometry(), args.halt_on_race)?),
        false => None,
    };
    let recorder = match &args.record_trace {
        Some(path) => Some(TraceWriter::new(create(path)?, config.geometry()).map_err(io_error(path))?),
        None => None,
    };
    // One monomorphised machine per combination of sinks: an unused sink costs nothing.
    let (status, race, recorder, notes) = match (race, recorder) {
        (None, None) => simulate(args, &config, image, host, ()).map(|(s, (), h)| (s, None, None, h))?,
        (Some(r), None) => simulate(args, &config, image, host, r).map(|(s, r, h)| (s, Some(r), None, h))?,
        (None, Some(t)) => simulate(args, &config, image, host, t).map(|(s, t, h)| (s, None, Some(t), h))?,
        (Some(r), Some(t)) => {
            simulate(args, &config, image, host, (r, t)).map(|(s, (r, t), h)| (s, Some(r), Some(t), h))?
        }
    };
    if let (Some(recorder), Some(path)) = (recorder, &args.record_trace) {
        recorder.finish(&notes).map_err(io_error(path))?;
    }
    match race {
        Some(race) => report_races(&args.report, &race.finish(), &source, &notes, status),
        None => Ok(status),
    }
}

fn race_checker(report: &ReportArgs, geometry: CacheGeometry, halt_on_race: bool) -> Result<RaceCheck, Fatal> {
    let config = DetectorConfig { geometry, cpu_uncached_vs_cache: report.race_uncached };
    RaceCheck::new(config, halt_on_race).map_err(|e| Fatal(Failure::InvalidConfig, e.to_string()))
}

/// Prints the race report; returns 66 when there were races, else `status`.
fn report_races(
    args: &ReportArgs,
    findings: &Findings,
    source: &SourceMap,
    notes: &RunNotes,
    status: u8,
) -> Result<u8, Fatal> {
    let colour = args.report_file.is_none() && io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let user_code = (!args.user_code.is_empty()).then(|| {
        let mut set = globset::GlobSetBuilder::new();
        args.user_code.iter().for_each(|g| {
            set.add(g.clone());
        });
        set.build().expect("globs parsed one by one build a set")
    });
    let options = report::Options { stack_depth: args.stack_depth as usize, user_code };
    let built = report::build(findings, source, notes, &options);
    let text = match args.report_format {
        ReportFormat::Human => report::text::render(&built, colour),
        ReportFormat::Json => report::json::render(&built),
    };
    match &args.report_file {
        Some(path) => std::fs::write(path, text).map_err(io_error(path))?,
        None => eprint!("{text}"),
    }
    Ok(if findings.report.is_empty() { status } else { RACES_FOUND })
}

/// Exit status of a run that found races (as ThreadSanitizer's).
const RACES_FOUND: u8 = 66;

fn sweep(args: &SweepArgs) -> Result<u8, Fatal> {
    let base = args.machine.machine().map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let mut axes = [
        ("line", args.line.clone()),
        ("wb", args.wb.clone()),
        ("size", args.size.clone()),
        ("ways", args.ways.clone()),
        ("policy", args.policy.clone()),
        ("write", args.write.clone()),
    ];
    if let Some(path) = &args.grid {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Fatal(Failure::InvalidConfig, format!("cannot read {}: {e}", path.display())))?;
        crate::sweep::add_grid_file(&mut axes, &text)
            .map_err(|e| Fatal(Failure::InvalidConfig, format!("{}: {e}", path.display())))?;
    }
    let variants = crate::sweep::grid(&base, &axes).map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let progress = io::stderr().is_terminal();
    let rows = crate::sweep::sweep(&args.programs, &variants, args.max_insns, progress)
        .map_err(|(path, e)| Fatal(e.failure(), format!("{}: {e}", path.display())))?;
    print!("{}", crate::sweep::table(&rows));
    if let Some(path) = &args.csv {
        std::fs::write(path, crate::sweep::csv(&rows)).map_err(io_error(path))?;
    }
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&rows).expect("plain data") + "\n";
        std::fs::write(path, json).map_err(io_error(path))?;
    }
    Ok(0)
}

fn detect(args: &DetectArgs) -> Result<u8, Fatal> {
    let file =
        File::open(&args.trace).map_err(|e| Fatal(Failure::Unreadable, format!("{}: {e}", args.trace.display())))?;
    let bad_trace = |e: TraceError| Fatal(Failure::BadTrace, format!("{}: {e}", args.trace.display()));
    let reader = TraceReader::new(io::BufReader::new(file)).map_err(bad_trace)?;
    let symbols = match &args.elf {
        Some(elf) => elf::load(elf).map_err(|e| Fatal(e.failure(), format!("{}: {e}", elf.display())))?.symbols,
        None => Default::default(),
    };
    let source = SourceMap::new(symbols, args.elf.as_deref());
    let mut race = race_checker(&args.report, reader.header.geometry, false)?;
    let mut notes = RunNotes::default();
    for frame in reader {
        match frame.map_err(bad_trace)? {
            Frame::Event(event) => race.emit(event),
            Frame::Heap(event) => notes.heap.push(event),
            Frame::Calls(nodes) => {
                notes.calls = CallTree::from_nodes(nodes).ok_or_else(|| bad_trace(TraceError::Corrupt { frame: 0 }))?
            }
        }
    }
    report_races(&args.report, &race.finish(), &source, &notes, 0)
}

/// Builds the machine with its event sink, runs it, reports; returns the exit status, the
/// sink and (when the sink is in use) the firmware's heap events.
fn simulate<S: EventSink>(
    args: &RunArgs,
    config: &MachineConfig,
    image: elf::Image,
    host: Semihost,
    sink: S,
) -> Result<(u8, S, RunNotes), Fatal> {
    let path = args.firmware.display();
    let mut machine =
        Machine::new(config, image, host, sink).map_err(|e| Fatal(Failure::OutsideMemory, format!("{path}: {e}")))?;
    if S::ENABLED {
        machine.watch_heap();
    }
    let outcome = match &args.trace {
        None => machine.run(&mut (), args.max_insns),
        Some(trace) => {
            let mut tracer = Tracer::new(create(trace)?);
            let outcome = machine.run(&mut tracer, args.max_insns);
            tracer.finish().map_err(io_error(trace))?;
            outcome
        }
    };
    let stats = machine.stats();
    if args.stats {
        eprintln!("{stats}");
    }
    if let Some(json_path) = &args.stats_json {
        let json = serde_json::to_string_pretty(&stats).expect("statistics are plain data");
        std::fs::write(json_path, json + "\n").map_err(io_error(json_path))?;
    }
    let status = report(&machine, outcome);
    let notes = machine.notes();
    Ok((status, machine.into_sink(), notes))
}

/// Turns the outcome into an exit status, explaining anything that is not a plain exit.
fn report<S: EventSink>(machine: &Machine<S>, outcome: Outcome) -> u8 {
    let at = |pc| machine.symbols.describe(pc);
    match outcome {
        // The process status keeps the low 8 bits, as a POSIX exit() would.
        Outcome::Exited(status) => status as u8,
        Outcome::ToHost(1) => 0,
        Outcome::ToHost(value) => {
            eprintln!("mxpsim: tohost = {value:#x}: test {} failed", value >> 1);
            tohost_failure_status(value)
        }
        Outcome::InsnLimit { limit, pc } => fail(
            Failure::InsnLimit,
            format_args!(
                "instruction limit reached: {limit} instructions executed, the firmware has not exited (pc {})",
                at(pc)
            ),
        ),
        Outcome::HaltedOnRace { pc } => {
            eprintln!("mxpsim: stopped at the first race (--halt-on-race), pc {}", at(pc));
            0
        }
        Outcome::Accelerator(e) => {
            fail(Failure::Accelerator, format_args!("accelerator: {e} (command issued at {})", at(e.pc)))
        }
        Outcome::TrapLoop { first, first_pc, second, second_pc, mtvec } => {
            // An illegal instruction may be a well-formed one used where it is not allowed
            // (a CSR from U-mode, say): then its text helps.
            let text = disassemble(first.tval);
            let what = match first.cause {
                Cause::IllegalInsn if !text.starts_with("unknown") => format!(" `{text}`"),
                _ => String::new(),
            };
            fail(
                Failure::TrapLoop,
                format_args!(
                    "unhandled trap: {first}{what} at {}; the trap handler at mtvec {mtvec:#010x} cannot run: {second} at {}",
                    at(first_pc),
                    at(second_pc)
                ),
            )
        }
    }
}

/// The exit status for a failing `tohost` value: the test number, kept from wrapping around
/// to 0 ("pass") in the 8 bits of a process status.
fn tohost_failure_status(value: u32) -> u8 {
    let test = value >> 1;
    if test & 0xff == 0 {
        1
    } else {
        test as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn failing_tohost_never_reports_success() {
        assert_eq!(tohost_failure_status((3 << 1) | 1), 3);
        assert_eq!(tohost_failure_status((256 << 1) | 1), 1);
        assert_eq!(tohost_failure_status(0), 1);
    }
}

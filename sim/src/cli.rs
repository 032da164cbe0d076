//! The `mxpsim` command line.

use crate::config::{parse_size, MachineConfig};
use crate::distinct_files::Files;
use crate::elf;
use crate::event_trace::{Frame, Header, Recording, TraceError, TraceReader, TraceWriter};
use crate::exit_code::{self, Failure, RunEnd, Signal, RACES_FOUND};
use crate::gdb::{self, RacesSoFar};
use crate::machine::{signature_range, Fault, Limits, Machine, Outcome, RunNotes};
use crate::progress::ProgressLine;
use crate::race_check::{Findings, RaceCheck};
use crate::report;
use crate::report::suppress::{self, Suppression};
use crate::semihost::Semihost;
use crate::source_map::SourceMap;
use crate::sweep::Axis;
use crate::timeline;
use crate::trace::Tracer;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use mxpsim_detector::event::CacheGeometry;
use mxpsim_detector::Config as DetectorConfig;
use mxpsim_models::cpu::calls::CallTree;
use mxpsim_models::cpu::decode::{disassemble, unimplemented_extension};
use mxpsim_models::cpu::{Cause, Interrupt, LoopKind};
use mxpsim_models::events::EventSink;
use mxpsim_models::memory_system::{layout, Part};
use mxpsim_models::stop::StopRequest;
use mxpsim_models::timeline::Recorder;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mxpsim",
    version,
    about = "Simulate a RISC-V SoC with a non-coherent accelerator and run firmware on it",
    long_about = "mxpsim simulates a small SoC (an RV32IMAC CPU with a configurable write-back \
                  data cache, AXI memory, and a VectorBlox-MXP-style vector/DMA accelerator \
                  whose scratchpad and DMA are not coherent with the cache) and runs unmodified \
                  firmware ELF files on it; with --race-check it reports the data races the \
                  cache and the accelerator create.\n\n\
                  The firmware's console (RISC-V semihosting, as picolibc's --oslib=semihost \
                  uses it) is mxpsim's standard output and error, and mxpsim exits with the \
                  firmware's exit status.\n\n\
                  Example:\n  mxpsim run firmware/bin/tests/hello.elf"
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
    /// Make each race the checker finds happen both ways, with schedules the race model
    /// allows, and show what it breaks: output, exit status, the racing bytes, memory.
    Provoke(ProvokeArgs),
}

/// Options that define the machine (shared by `run` and `config`).
#[derive(Args)]
struct MachineArgs {
    /// The machine: a preset (`default`, `virt`: QEMU virt's RAM, CLINT and UART) or a
    /// TOML machine file ([memory], [cache], [axi], [cpu], [mxp], [devices.*]; `mxpsim
    /// config` prints every field).
    #[arg(long, visible_alias = "config", value_name = "NAME|FILE")]
    machine: Option<String>,

    /// Cache overrides: `off`, or key=value pairs, e.g.
    /// size=32K,line=64,ways=4,policy=lru,write=back,wb=line (keys: size, line, ways
    /// (number or full), policy (lru, fifo, plru, random), write (back, through), wb (line,
    /// byte), hit, wbuf, seed).
    #[arg(long, value_name = "SPEC")]
    cache: Option<String>,

    /// DRAM size, e.g. 64M, 128M, 0x800000.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    dram_size: Option<u32>,

    /// Stop the run (exit status 123) at a vector operand row that leaves the scratchpad,
    /// instead of wrapping its addresses at the scratchpad's end as the hardware does
    /// (`[mxp] strict_bounds`).
    #[arg(long)]
    strict_bounds: bool,
}

impl MachineArgs {
    /// The machine file read, when `--machine` names one rather than a preset.
    fn file(&self) -> Option<&Path> {
        self.machine.as_deref().filter(|name| is_machine_file(name)).map(Path::new)
    }

    /// The effective configuration: defaults, then the file, then the overrides.
    fn machine(&self) -> Result<MachineConfig, String> {
        let mut config = match self.machine.as_deref() {
            None => MachineConfig::default(),
            Some(name) if !is_machine_file(name) => MachineConfig::preset(name)
                .ok_or_else(|| {
                    let names: Vec<_> = crate::config::PRESETS.iter().map(|(n, _)| *n).collect();
                    format!("no machine preset `{name}` (presets: {}; or give a TOML file)", names.join(", "))
                })?
                .map_err(|e| format!("preset {name}: {e}"))?,
            Some(path) => {
                let text =
                    crate::input::read_to_string(Path::new(path)).map_err(|e| format!("cannot read {path}: {e}"))?;
                MachineConfig::from_toml(&text).map_err(|e| format!("{path}: {e}"))?
            }
        };
        // A value the file gets wrong by itself is named with the file.
        let from_file = self.machine.as_deref().filter(|_| config.validate().is_err());
        if let Some(spec) = &self.cache {
            config.apply_cache_overrides(spec).map_err(|e| e.to_string())?;
        }
        if let Some(size) = self.dram_size {
            config.memory.dram_size = size;
        }
        config.mxp.strict_bounds |= self.strict_bounds;
        config.validate().map_err(|e| from_file.map_or_else(|| e.to_string(), |path| format!("{path}: {e}")))?;
        Ok(config)
    }
}

/// Whether `--machine NAME` names a file (else a preset): a path has a `/` or a `.`.
fn is_machine_file(name: &str) -> bool {
    name.contains(['/', '.'])
}

/// `config` prints the effective machine as a TOML file (usable with --config).
#[derive(Args)]
struct ConfigArgs {
    /// Print the configuration (what `config` does anyway; kept for older scripts).
    #[arg(long)]
    dump: bool,

    #[command(flatten)]
    machine: MachineArgs,
}

#[derive(Args)]
struct RunArgs {
    /// The firmware: a statically linked RV32IM (ilp32) ELF executable.
    firmware: PathBuf,

    /// Arguments for the firmware, after its image's name on the semihosting command line (with
    /// picolibc, argv[2..]: its crt0 puts "program-name" first, as under QEMU).
    #[arg(last = true)]
    args: Vec<String>,

    /// Stop after N instructions (exit status 120) instead of running forever.
    #[arg(long, value_name = "N")]
    max_insns: Option<u64>,

    /// Stop when the simulated clock reaches N cycles (exit status 120), also while the CPU
    /// waits for the accelerator.
    #[arg(long, value_name = "N")]
    max_cycles: Option<u64>,

    /// Write one line per executed instruction (PC, word, disassembly, register written)
    /// and per trap to FILE.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,

    /// Print run statistics (instructions, cycles, cache) on standard error at the end.
    #[arg(long)]
    stats: bool,

    /// At the end, write the signature region (`begin_signature`..`end_signature`, as the
    /// architecture tests name it) to FILE in Spike's format.
    #[arg(long, value_name = "FILE")]
    signature: Option<PathBuf>,

    /// Bytes per line of --signature (Spike's --signature-granularity).
    #[arg(long, value_name = "N", default_value_t = 4, requires = "signature",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    signature_granularity: u32,

    /// Write the run statistics as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,

    /// Record the memory-interface event stream (what the race detector sees) to FILE, in
    /// mxpsim's compact trace format.
    #[arg(long, value_name = "FILE")]
    record_trace: Option<PathBuf>,

    /// Write a timeline of the run to FILE for Perfetto's UI (ui.perfetto.dev) or
    /// chrome://tracing (Chrome trace-event JSON; 1 us = 1 cycle): the CPU's functions, its
    /// waits, the DMA and vector queues, cache fills and write-backs, races as arrows.
    #[arg(long, value_name = "FILE", requires = "race_check")]
    timeline: Option<PathBuf>,

    /// Only cycles FROM:TO in the timeline (either may be empty: from the start, to the end).
    #[arg(long, value_name = "FROM:TO", requires = "timeline")]
    timeline_window: Option<String>,

    /// Detect data races between the CPU (and its cache) and the accelerator while running;
    /// exit status 66 (or --race-exitcode) when races no suppression matches are found.
    #[arg(long)]
    race_check: bool,

    /// With --race-check: stop at the first race.
    #[arg(long, requires = "race_check")]
    halt_on_race: bool,

    /// With --race-check: then make each finding happen both ways, as `mxpsim provoke` does
    /// (with its defaults), and print what that changes on standard error after the race
    /// report. The exit status is the run's.
    /// (Not with --suppressions: provoke's findings would not be the report's.)
    #[arg(long, requires = "race_check", conflicts_with_all = ["halt_on_race", "gdb", "suppressions"])]
    provoke: bool,

    /// Wait for GDB on 127.0.0.1:PORT (0: any free port, printed) before the first
    /// instruction, and run under its control (`target remote :PORT`; `monitor help`).
    #[arg(long, value_name = "PORT", conflicts_with = "trace")]
    gdb: Option<u16>,

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

    /// Report format: human (the default), json (versioned: schemas/race-report.schema.json)
    /// or sarif (SARIF 2.1.0). json and sarif need --report-file when the report would share
    /// a stream with the firmware's console (`run`).
    #[arg(long, value_name = "FORMAT")]
    report_format: Option<ReportFormat>,

    /// Write the race report to FILE instead of standard error (created before the run).
    #[arg(long, value_name = "FILE")]
    report_file: Option<PathBuf>,

    /// Also write the race report as FORMAT (human, json or sarif) to FILE, from the same run
    /// (repeatable; created before the run): e.g. the human report on standard error and
    /// SARIF for code scanning.
    #[arg(long, value_name = "FORMAT:FILE", value_parser = parse_report_also)]
    report_also: Vec<(ReportFormat, PathBuf)>,

    /// Frames per stack in race reports at most [default: 16].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    stack_depth: Option<u16>,

    /// Which source files are the firmware's own code (repeatable; e.g. 'src/**', 'app/*.c'):
    /// replaces the default rule (everything but the C library, crt0 and the SDK).
    #[arg(long, value_name = "GLOB", value_parser = parse_glob)]
    user_code: Vec<globset::Glob>,

    /// SARIF reports give source files relative to DIR [default: the current directory].
    #[arg(long, value_name = "DIR")]
    source_root: Option<PathBuf>,

    /// Findings not to report (ThreadSanitizer's syntax: race:, race_top:, plus class: and
    /// object:; see README). With -v the report lists what each suppression matched.
    #[arg(long, value_name = "FILE")]
    suppressions: Option<PathBuf>,

    /// Exit status when races were found that no suppression matched [default: 66].
    #[arg(long, value_name = "N")]
    race_exitcode: Option<u8>,
}

impl ReportArgs {
    /// The options given, by name (`run` rejects them without --race-check).
    fn given(&self) -> Vec<&'static str> {
        [
            (self.race_uncached, "--race-uncached"),
            (self.report_format.is_some(), "--report-format"),
            (self.report_file.is_some(), "--report-file"),
            (!self.report_also.is_empty(), "--report-also"),
            (self.stack_depth.is_some(), "--stack-depth"),
            (!self.user_code.is_empty(), "--user-code"),
            (self.race_exitcode.is_some(), "--race-exitcode"),
            (self.suppressions.is_some(), "--suppressions"),
            (self.source_root.is_some(), "--source-root"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }

    /// The suppressions read and the reports written.
    fn files<'a>(&'a self, files: &mut Files<'a>) {
        files
            .input("--suppressions", self.suppressions.as_deref())
            .output("--report-file", self.report_file.as_deref());
        for (_, file) in &self.report_also {
            files.output("--report-also", Some(file));
        }
    }

    /// The suppressions file, read and parsed (before the run: a bad file fails at once).
    fn suppressions(&self) -> Result<Vec<Suppression>, Fatal> {
        let Some(path) = &self.suppressions else { return Ok(Vec::new()) };
        let bad =
            |message: String| Fatal(Failure::InvalidConfig, format!("suppressions {}: {message}", path.display()));
        let text = crate::input::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        suppress::parse(&text).map_err(|e| bad(e.to_string()))
    }

    fn race_exitcode(&self) -> u8 {
        self.race_exitcode.unwrap_or(RACES_FOUND)
    }

    /// How the report is built (`--stack-depth`, `--user-code`).
    fn options(&self) -> report::Options {
        let user_code = (!self.user_code.is_empty()).then(|| {
            let mut set = globset::GlobSetBuilder::new();
            self.user_code.iter().for_each(|g| {
                set.add(g.clone());
            });
            set.build().expect("globs parsed one by one build a set")
        });
        report::Options { stack_depth: self.stack_depth.map_or(16, usize::from), user_code }
    }
}

/// `FORMAT:FILE` of `--report-also`.
fn parse_report_also(text: &str) -> Result<(ReportFormat, PathBuf), String> {
    let (format, file) = text.split_once(':').ok_or("expected FORMAT:FILE, e.g. sarif:races.sarif")?;
    let format = <ReportFormat as clap::ValueEnum>::from_str(format, false)
        .map_err(|_| format!("unknown format '{format}' (human, json or sarif)"))?;
    if file.is_empty() {
        return Err("no FILE after the format".into());
    }
    Ok((format, PathBuf::from(file)))
}

fn parse_glob(text: &str) -> Result<globset::Glob, String> {
    globset::Glob::new(text).map_err(|e| e.to_string())
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
    Human,
    Json,
    Sarif,
}

impl ReportFormat {
    /// A machine-readable format (not for a terminal shared with other output).
    fn is_data(self) -> bool {
        !matches!(self, ReportFormat::Human)
    }

    fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).expect("no variant is skipped").get_name().to_string()
    }
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct SweepArgs {
    #[command(subcommand)]
    merge: Option<SweepCommand>,

    /// Firmware ELF files.
    #[arg(required = true)]
    programs: Vec<PathBuf>,

    /// Run only the K-th of N slices of the grid (cells K, K+N, K+2N, … in program-then-cache
    /// order) and write its rows to standard output as JSON lines, for `mxpsim sweep merge`
    /// (one shard per cluster task: see README, "Sweeps on a cluster").
    #[arg(long, value_name = "K/N", conflicts_with_all = ["csv", "json"], value_parser = crate::sweep::Shard::parse)]
    shard: Option<crate::sweep::Shard>,

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

    /// Stop each run at simulated cycle N (also while the CPU waits on the accelerator,
    /// which --max-insns cannot stop).
    #[arg(long, value_name = "N")]
    max_cycles: Option<u64>,

    #[command(flatten)]
    table: TableArgs,

    /// The base machine (the grid varies its cache).
    #[command(flatten)]
    machine: MachineArgs,
}

/// What a sweep (or a merge of shards) writes besides the table, and how it exits.
#[derive(Args)]
struct TableArgs {
    /// Also write the table as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// Also write the table as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Exit 0 even when a cell raced or failed (by default the sweep's status follows the
    /// run's precedence rules over its cells: a failure, else 66 if any cell raced).
    #[arg(long)]
    exit_zero: bool,
}

#[derive(Subcommand)]
enum SweepCommand {
    /// Join the outputs of `sweep --shard K/N` runs (all N of them, any order) into exactly
    /// the table, CSV, JSON and exit status that one `sweep` of the whole grid gives.
    Merge(MergeArgs),
}

#[derive(Args)]
struct MergeArgs {
    /// The shards' outputs.
    #[arg(required = true)]
    shards: Vec<PathBuf>,

    #[command(flatten)]
    table: TableArgs,
}

#[derive(Args)]
struct DetectArgs {
    /// The trace, as written by `mxpsim run --record-trace`.
    trace: PathBuf,

    /// The firmware ELF the trace was recorded from: names functions, source lines and
    /// variables in the report.
    #[arg(long, value_name = "FW.elf")]
    elf: Option<PathBuf>,

    /// Analyse a trace that was cut short or damaged up to its last intact frame (without
    /// it such a trace is refused: exit status 108 or 124); the report says where it ends.
    #[arg(long)]
    partial: bool,

    #[command(flatten)]
    report: ReportArgs,
}

#[derive(Args)]
struct ProvokeArgs {
    /// The firmware: a statically linked RV32IM (ilp32) ELF executable.
    firmware: PathBuf,

    /// Arguments for the firmware (after `--`), as for `run`.
    #[arg(last = true)]
    args: Vec<String>,

    /// Provoke finding N only (numbered as the race report numbers them; repeatable).
    #[arg(long = "race", value_name = "N")]
    races: Vec<usize>,

    /// Provoke every finding (the default).
    #[arg(long, conflicts_with = "races")]
    all: bool,

    /// Try at most N of a finding's races (site pair and cache line), in the detector's
    /// order, until one changes the output or the exit status (harmful); 0: all of the first
    /// 64 (a report keeps no more of a finding).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TRIES)]
    tries: usize,

    /// Stop each run after N instructions (default for the re-runs: ten times the first
    /// run's, plus ten million: a schedule may send the firmware into a loop).
    #[arg(long, value_name = "N")]
    max_insns: Option<u64>,

    /// Stop each run at simulated cycle N.
    #[arg(long, value_name = "N")]
    max_cycles: Option<u64>,

    /// Also look for races between the CPU's uncached accesses and the cache (as `run
    /// --race-uncached`).
    #[arg(long)]
    race_uncached: bool,

    /// `human` (default) or `json` (`schemas/provoke.schema.json`).
    #[arg(long, value_name = "FORMAT")]
    report_format: Option<ProvokeFormat>,

    /// Write the result to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    report_file: Option<PathBuf>,

    /// Write the timeline (as `run --timeline`) of the re-run behind the first finding's
    /// verdict to FILE, with what the schedule did marked on it.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,

    /// Only cycles FROM:TO in the timeline.
    #[arg(long, value_name = "FROM:TO", requires = "timeline")]
    timeline_window: Option<String>,

    #[command(flatten)]
    machine: MachineArgs,
}

/// How many of a finding's races `provoke` tries by default.
const DEFAULT_TRIES: usize = 8;

#[derive(Clone, Copy, clap::ValueEnum)]
enum ProvokeFormat {
    Human,
    Json,
}

/// What `provoke` needs of a command line (`mxpsim provoke`, `run --provoke`).
struct ProvokeRun<'a> {
    config: &'a MachineConfig,
    image: &'a elf::Image,
    source: &'a SourceMap,
    cmdline: String,
    max_insns: Option<u64>,
    max_cycles: Option<u64>,
    race_uncached: bool,
    timeline: Option<Option<String>>,
    /// 0: all.
    tries: usize,
    /// How findings are built and numbered (as the race report that comes with them).
    options: crate::report::Options,
}

impl<'a> ProvokeRun<'a> {
    /// With `provoke`'s defaults: no limits of its own, `DEFAULT_TRIES` races a finding, the
    /// report's default options, no timeline.
    fn new(config: &'a MachineConfig, image: &'a elf::Image, source: &'a SourceMap, cmdline: String) -> Self {
        ProvokeRun {
            config,
            image,
            source,
            cmdline,
            max_insns: None,
            max_cycles: None,
            race_uncached: false,
            timeline: None,
            tries: DEFAULT_TRIES,
            options: Default::default(),
        }
    }

    /// Runs `provoke`; also returns the stop request (set if a signal cut the runs short).
    fn provoke(
        self,
        selection: &crate::provoke::Selection,
    ) -> Result<(crate::provoke::model::Provoked, StopRequest), Fatal> {
        let stop = stop_on_signals()?;
        let limits = Limits { max_insns: self.max_insns, max_cycles: self.max_cycles, stop: stop.clone() };
        let detector = DetectorConfig { geometry: self.config.geometry(), cpu_uncached_vs_cache: self.race_uncached };
        let setup = crate::provoke::Setup {
            config: self.config,
            image: self.image,
            cmdline: self.cmdline,
            limits,
            detector,
            timeline: self.timeline,
            tries: (self.tries > 0).then_some(self.tries),
            options: self.options,
        };
        let provoked = crate::provoke::provoke(&setup, self.source, selection).map_err(|e| Fatal(Failure::Usage, e))?;
        Ok((provoked, stop))
    }
}

const PROVOKE_INTERRUPTED: &str = "provoke: interrupted; the runs it cut short have no verdict";

/// SIGINT and SIGTERM set the returned request ([`crate::signals`]).
fn stop_on_signals() -> Result<StopRequest, Fatal> {
    crate::signals::stop_on_signals()
        .map_err(|e| Fatal(Failure::HostIo, format!("cannot install the signal handlers: {e}")))
}

/// A signal stopped the runs: what they found is delivered (`message` says what it is), but
/// it is not the whole answer.
fn interrupted(stop: &StopRequest, message: String) -> Result<(), Fatal> {
    let Some(reason) = stop.reason() else { return Ok(()) };
    let end = RunEnd::Interrupted { signal: Signal::of(reason), instructions: 0 };
    let failure = end.status().expect_err("an interrupted run is a failure");
    Err(Fatal(failure, message))
}

/// `mxpsim provoke`: the result on standard output (or the file); exit status 0 once it is
/// delivered, whatever the verdicts, unless the runs did not finish (a signal, or a first
/// run that stopped short: that failure's status, as for `run`).
fn provoke(args: &ProvokeArgs) -> Result<u8, Fatal> {
    distinct(
        Files::default()
            .input("the firmware", Some(&args.firmware))
            .input("--machine", args.machine.file())
            .output("--report-file", args.report_file.as_deref())
            .output("--timeline", args.timeline.as_deref()),
    )?;
    let config = args.machine.machine().map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let path = args.firmware.display().to_string();
    let image = elf::load(&args.firmware).map_err(|e| Fatal(e.failure(), format!("{path}: {e}")))?;
    // The image must fit before the runs (they assume it does), and before any output is
    // created (a refused run leaves the files as they were).
    crate::fit::check(&image, &config).map_err(does_not_fit(&args.firmware))?;
    let cmdline = crate::semihost::command_line(&args.firmware, &args.args).map_err(|e| Fatal(Failure::Usage, e))?;
    if args.timeline.is_some() {
        timeline::recorder(args.timeline_window.as_deref()).map_err(|e| Fatal(Failure::Usage, e))?;
    }
    let source = SourceMap::of(&image);
    let out = OutFile::create_opt("the provoke report", args.report_file.as_deref())?;
    let timeline_out = OutFile::create_opt("the timeline", args.timeline.as_deref())?;
    let selection = match args.races.is_empty() {
        true => crate::provoke::Selection::All,
        false => crate::provoke::Selection::Numbers(args.races.clone()),
    };
    let run = ProvokeRun {
        max_insns: args.max_insns,
        max_cycles: args.max_cycles,
        race_uncached: args.race_uncached,
        timeline: args.timeline.as_ref().map(|_| args.timeline_window.clone()),
        tries: args.tries,
        ..ProvokeRun::new(&config, &image, &source, cmdline)
    };
    let (provoked, stop) = run.provoke(&selection)?;
    let text = match args.report_format.unwrap_or(ProvokeFormat::Human) {
        ProvokeFormat::Human => crate::provoke::text::render(&provoked),
        ProvokeFormat::Json => crate::provoke::json::render(&provoked, &config),
    };
    match out {
        Some(file) => file.write(&text)?,
        None => write_stdout(&text, "the provoke report")?,
    }
    interrupted(&stop, PROVOKE_INTERRUPTED.into())?;
    // A first run that did not finish (a limit, a trap loop, an accelerator error) fails as
    // `run` would: its findings are those of the part that ran, and each re-run stopped
    // where it did.
    let unfinished = provoked.first_end.status().err().map(|failure| {
        Fatal(failure, format!("provoke: the first run did not finish ({})", provoked.first_end.describe()))
    });
    if let Some(file) = timeline_out {
        let worst = provoked.findings.first().and_then(|f| f.worst().map(|a| (f, a)));
        let Some((finding, (recorder, calls))) = worst.and_then(|(f, a)| Some((f, a.timeline.as_ref()?))) else {
            return Err(unfinished.unwrap_or(Fatal(
                Failure::Usage,
                "--timeline: no finding was re-run (no finding, or none with a schedule)".into(),
            )));
        };
        let happened = &finding.worst().expect("checked").happened;
        let program = elf::file_name(&args.firmware);
        let findings = vec![(finding.number, &finding.finding)];
        let context = timeline::Context { program: &program, source: &source, calls, findings, happened };
        file.write(&timeline::render(recorder.clone(), &context))?;
    }
    unfinished.map_or(Ok(0), Err)
}

/// Parses the command line, runs it, and returns the process's exit status.
pub fn main() -> ExitCode {
    if let Err(stream) = crate::std_streams::check() {
        return ExitCode::from(fail(
            Failure::HostIo,
            format!("{stream} is closed: what mxpsim writes there would be lost"),
        ));
    }
    let parsed = Cli::command()
        .after_help(exit_status_help())
        .try_get_matches_from(expand_short_form(std::env::args_os()))
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        // --help, --version: output like any other (a full disk or a closed pipe says so).
        Err(e) if !e.use_stderr() => {
            let status = match write_stdout(&e.render().to_string(), "the help") {
                Ok(()) => 0,
                Err(Fatal(failure, message)) => fail(failure, message),
            };
            return ExitCode::from(status);
        }
        // (Clap's answer to no command at all is the whole help, on standard error: its
        // first line, the one an error keeps, would be the tool's description.)
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let message = "no command given (run, sweep, detect, provoke, config; e.g. mxpsim run FW.elf; try --help)";
            return ExitCode::from(fail(Failure::Usage, message));
        }
        Err(e) => {
            let code = e.exit_code() as u8;
            debug_assert_eq!(code, Failure::Usage.code());
            return ExitCode::from(fail(Failure::Usage, one_line(&e.render().to_string())));
        }
    };
    init_logging(cli.verbose);
    report_panics_as_internal_errors();
    let status = match cli.command {
        Command::Run(args) => run(args),
        Command::Sweep(args) => sweep(&args).unwrap_or_else(|Fatal(failure, message)| fail(failure, message)),
        Command::Detect(args) => detect(&args).unwrap_or_else(|Fatal(failure, message)| fail(failure, message)),
        Command::Provoke(args) => provoke(&args).unwrap_or_else(|Fatal(failure, message)| fail(failure, message)),
        Command::Config(args) => match args.machine.machine() {
            Ok(config) => match write_stdout(&config.to_toml(), "the configuration") {
                Ok(()) => 0,
                Err(Fatal(failure, message)) => fail(failure, message),
            },
            Err(e) => fail(Failure::InvalidConfig, e),
        },
    };
    ExitCode::from(status)
}

/// The `--help` epilogue: every exit status (the one table of them).
fn exit_status_help() -> String {
    let rows: Vec<String> =
        exit_code::table().iter().map(|(status, meaning)| format!("  {status:>9}  {meaning}")).collect();
    format!("Exit status (precedence: a failure of mxpsim, then races, then the firmware's own):\n{}", rows.join("\n"))
}

/// clap's message as mxpsim's one line: its sentences and tips without the usage block, the
/// error's own prefix dropped (`fail` puts mxpsim's), and where more is found.
fn one_line(rendered: &str) -> String {
    let mut line = String::new();
    for part in rendered.lines().map(str::trim).take_while(|l| !l.starts_with("Usage:")) {
        if part.is_empty() || part.starts_with("For more information") {
            continue;
        }
        let part = part.strip_prefix("error: ").unwrap_or(part);
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    line + " (try --help)"
}

/// `mxpsim FW.elf …` and `mxpsim --race-check FW.elf …` are short for `mxpsim run …`: when
/// the first argument after the global `-v` flags is neither a subcommand nor help/version
/// but an option or a path, `run` is inserted before it.
fn expand_short_form(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut args: Vec<_> = args.collect();
    let verbose = |a: &std::ffi::OsString| {
        a == "--verbose"
            || a.to_str().is_some_and(|a| a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| c == 'v'))
    };
    let first = 1 + args.iter().skip(1).take_while(|a| verbose(a)).count();
    let keeps = |a: &std::ffi::OsString| {
        let a = a.to_str().unwrap_or("");
        Cli::command().get_subcommands().any(|c| c.get_name() == a)
            || ["help", "-h", "--help", "-V", "--version"].contains(&a)
    };
    // A run's option or a firmware's path; a bare word that names no file is left to the
    // parser, which names it as the mistyped subcommand it likely is (`detetc`).
    let runs = |a: &std::ffi::OsString| {
        let text = a.to_string_lossy();
        text.starts_with('-') || text.contains(['/', '.']) || std::path::Path::new(a).exists()
    };
    if args.get(first).is_some_and(|a| !keeps(a) && runs(a)) {
        args.insert(first, "run".into());
    }
    args
}

/// A panic is a bug of mxpsim: one line that says so and where, and its own exit status
/// (not Rust's 101, which is a documented status here, nor an abort).
fn report_panics_as_internal_errors() {
    std::panic::set_hook(Box::new(|info| {
        use std::io::Write;
        // (PanicHookInfo::payload_as_str is newer than the supported Rust, 1.85.)
        let payload = info.payload();
        let text = payload.downcast_ref::<String>().map(String::as_str);
        let message = payload.downcast_ref::<&str>().copied().or(text).unwrap_or("(no message)");
        let at = info.location().map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        let _ = writeln!(io::stderr(), "mxpsim: internal error: {message}{at} (a bug: please report it)");
        std::process::exit(Failure::Internal.code().into());
    }));
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
    // A closed pipe ends quietly; standard error may be closed or full too: the status
    // still says what happened.
    if failure != Failure::ClosedPipe {
        let _ = crate::diag::write(&format!("mxpsim: error: {}\n", shorten_words(&message.to_string())));
    }
    failure.code()
}

/// `text` with every run of more than 240 non-blank characters cut to its first 60 and its
/// length: error messages quote what they refuse (a value, a key, a path), and a 1 MB value
/// must not become a 1 MB line. (Real paths stay whole: few are that long.)
fn shorten_words(text: &str) -> String {
    const LONGEST: usize = 240;
    const KEPT: usize = 60;
    let mut out = String::with_capacity(text.len().min(4096));
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        match word.char_indices().nth(LONGEST) {
            Some(_) => {
                let kept = word.char_indices().nth(KEPT).map_or(word.len(), |(i, _)| i);
                // Closing quotes and punctuation stay: the sentence around the word still reads.
                let tail = word.len() - word.chars().rev().take(3).take_while(char::is_ascii_punctuation).count();
                out.push_str(&format!("{}… ({} bytes){}", &word[..kept], word.len(), &word[tail..]));
            }
            None => out.push_str(word),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Writes `what` to standard output: a full disk is an output failure (122); a reader that
/// went away (a closed pipe: `| head`) ends mxpsim quietly, as it does any Unix filter.
fn write_stdout(text: &str, what: &str) -> Result<(), Fatal> {
    use std::io::Write;
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(io_error(what, Path::new("standard output")))
}

/// One of mxpsim's own failures: its exit status and its message.
struct Fatal(Failure, String);

/// An output file, created before the work that fills it (a path that cannot be written
/// fails at once, not after a long run whose results would then be lost).
struct OutFile {
    /// What it holds, for messages: "the race report".
    what: &'static str,
    path: PathBuf,
    out: BufWriter<File>,
}

impl OutFile {
    fn create(what: &'static str, path: &Path) -> Result<OutFile, Fatal> {
        let out = File::create(path).map(BufWriter::new).map_err(io_error(what, path))?;
        Ok(OutFile { what, path: path.to_path_buf(), out })
    }

    fn create_opt(what: &'static str, path: Option<&Path>) -> Result<Option<OutFile>, Fatal> {
        path.map(|p| OutFile::create(what, p)).transpose()
    }

    /// Writes the whole content and closes the file. Should that fail, the content must not
    /// be lost: standard error takes it, and the error says so.
    fn write(mut self, text: &str) -> Result<(), Fatal> {
        use std::io::Write;
        self.out.write_all(text.as_bytes()).and_then(|()| self.out.flush()).map_err(|e| {
            let Fatal(failure, message) = io_error(self.what, &self.path)(e);
            match crate::diag::write(text) {
                Ok(()) if failure != Failure::ClosedPipe => {
                    Fatal(failure, format!("{message} ({} went to standard error, above)", self.what))
                }
                _ => Fatal(failure, message),
            }
        })
    }
}

/// The failure of a firmware at `path` that the machine cannot hold.
fn does_not_fit(path: &Path) -> impl Fn(crate::fit::OutsideMemory) -> Fatal + '_ {
    move |e| Fatal(Failure::OutsideMemory, format!("{}: {e}", path.display()))
}

/// Refuses a command whose outputs are among its inputs or each other, before any is created.
fn distinct(files: &Files) -> Result<(), Fatal> {
    files.check().map_err(|message| Fatal(Failure::Usage, message))
}

fn io_error<'a>(what: &'a str, path: &'a Path) -> impl Fn(io::Error) -> Fatal + 'a {
    move |e| match crate::diag::output_failure(e.kind()) {
        // A reader that went away: quietly, as any filter in a pipe.
        Failure::ClosedPipe => Fatal(Failure::ClosedPipe, String::new()),
        failure => Fatal(failure, format!("cannot write {what} to {}: {e}", path.display())),
    }
}

fn run(args: RunArgs) -> u8 {
    match try_run(&args) {
        Ok(status) => status,
        Err(Fatal(failure, message)) => fail(failure, message),
    }
}

/// Options that mean nothing in this combination are errors, not silence.
fn check_run_options(args: &RunArgs) -> Result<(), Fatal> {
    let usage = |message: String| Err(Fatal(Failure::Usage, message));
    if !args.race_check {
        if let Some(option) = args.report.given().first() {
            return usage(format!("{option} needs --race-check"));
        }
    }
    if args.halt_on_race && args.report.suppressions.is_some() {
        // The run would stop at a race that a suppression may match, before any other.
        return usage("--halt-on-race cannot be used with --suppressions".into());
    }
    match args.report.report_format {
        Some(format @ (ReportFormat::Json | ReportFormat::Sarif)) if args.report.report_file.is_none() => {
            usage(format!(
                "--report-format {} needs --report-file FILE (standard output and error carry the firmware's console)",
                format.name()
            ))
        }
        _ => Ok(()),
    }
}

fn try_run(args: &RunArgs) -> Result<u8, Fatal> {
    check_run_options(args)?;
    let mut files = Files::default();
    files
        .input("the firmware", Some(&args.firmware))
        .input("--machine", args.machine.file())
        .output("--trace", args.trace.as_deref())
        .output("--signature", args.signature.as_deref())
        .output("--stats-json", args.stats_json.as_deref())
        .output("--record-trace", args.record_trace.as_deref())
        .output("--timeline", args.timeline.as_deref());
    args.report.files(&mut files);
    distinct(&files)?;
    let config = args.machine.machine().map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let path = args.firmware.display().to_string();
    let image = elf::load(&args.firmware).map_err(|e| Fatal(e.failure(), format!("{path}: {e}")))?;
    // What can refuse the run is looked at before any output is created: files given for
    // its results are left as they were (a firmware that did not fit emptied them).
    crate::fit::check(&image, &config).map_err(does_not_fit(&args.firmware))?;
    let suppressions = args.report.suppressions()?;
    let signature = args.signature.as_deref().map(|path| {
        let range = signature_range(&image.symbols).map_err(|e| Fatal(Failure::Usage, format!("--signature: {e}")))?;
        Ok((range, path))
    });
    let signature = signature.transpose()?;
    let cmdline = crate::semihost::command_line(&args.firmware, &args.args).map_err(|e| Fatal(Failure::Usage, e))?;
    let timeline = args.timeline.as_deref().map(|path| {
        let recorder = timeline::recorder(args.timeline_window.as_deref()).map_err(|e| Fatal(Failure::Usage, e))?;
        Ok((recorder, path))
    });
    let timeline = timeline.transpose()?;
    let source = SourceMap::of(&image);
    // Every output file is created before the run: a path that cannot be written fails now,
    // not after a long run whose results would then be lost.
    let report_out = ReportOuts::open(&args.report)?;
    let stats_out = OutFile::create_opt("the statistics", args.stats_json.as_deref())?;
    let signature_out = match signature {
        Some((range, path)) => Some((range, OutFile::create("the signature", path)?)),
        None => None,
    };
    // On a terminal the firmware's lines show as they are written; elsewhere they are
    // buffered (and flushed when the run ends, however it ends).
    let on_terminal = io::stdout().is_terminal();
    let stdout = crate::diag::FirmwareStream::new(io::stdout());
    let console: Box<dyn io::Write> = match on_terminal {
        true => Box::new(io::LineWriter::new(stdout)),
        false => Box::new(BufWriter::new(stdout)),
    };
    let stderr = || Box::new(crate::diag::FirmwareStream::new(io::stderr()));
    let progress = ProgressLine::on_terminal();
    let (console, errors): (Box<dyn io::Write>, Box<dyn io::Write>) = match &progress {
        // The progress line is on standard error's terminal: whatever goes to it too takes
        // the line off first.
        Some(line) => {
            let console = if on_terminal { line.around(console, true) } else { console };
            (console, line.around(stderr(), false))
        }
        None => (console, stderr()),
    };
    // `--provoke` re-runs the firmware from the start, as it was given.
    let again = args.provoke.then(|| (image.clone(), cmdline.clone()));
    let host = Semihost::new(console, errors, cmdline, config.clock_hz);
    let race = match args.race_check {
        true => Some(race_checker(&args.report, config.geometry(), args.halt_on_race)?),
        false => None,
    };
    let recorder = match &args.record_trace {
        Some(path) => {
            let what = "the event trace";
            let firmware = image.fingerprint();
            let header = Header::new(config.geometry(), config.memory.ranges(), config.mxp.scratchpad_size, firmware);
            Some(TraceWriter::new(OutFile::create(what, path)?.out, &header).map_err(io_error(what, path))?)
        }
        None => None,
    };
    let timeline = match timeline {
        Some((recorder, path)) => Some((recorder, OutFile::create("the timeline", path)?)),
        None => None,
    };
    let (timeline, timeline_out) = timeline.map_or((None, None), |(r, f)| (Some(r), Some(f)));
    let outputs = Outputs { stats: stats_out, signature: signature_out, progress, timeline };
    // One monomorphised machine per sink: an unused sink costs nothing, and a recorded run
    // has the checker beside the recorder or not.
    let (end, race, recorder, notes, mut late) = match (race, recorder) {
        (None, None) => simulate(args, &config, image, host, (), outputs).map(|(e, (), n, l)| (e, None, None, n, l))?,
        (Some(r), None) => {
            simulate(args, &config, image, host, r, outputs).map(|(e, r, n, l)| (e, Some(r), None, n, l))?
        }
        (race, Some(trace)) => simulate(args, &config, image, host, Recording { trace, race }, outputs)
            .map(|(e, recording, n, l)| (e, recording.race, Some(recording.trace), n, l))?,
    };
    if let (Some(recorder), Some(path)) = (recorder, &args.record_trace) {
        late.note(recorder.finish(&notes, &end).map_err(io_error("the event trace", path)));
    }
    // The race report is delivered whatever else failed.
    let races = match race {
        Some(race) => {
            let findings = race.finish();
            let found =
                Checked { findings: &findings, source: &source, notes: &notes, end: &end, machine: Some(&config) };
            // (A report that could not be written leaves the status to the failures.)
            let (races, failed) = report_races(&args.report, report_out, &suppressions, found);
            failed.into_iter().for_each(|fatal| late.note(Err(fatal)));
            if let (Some(file), Some(recorder)) = (timeline_out, notes.timeline.clone()) {
                let report = report::build(&findings, &source, &notes, &Default::default(), end.clone());
                let program = elf::file_name(&args.firmware);
                let findings = report.findings.iter().enumerate().map(|(i, f)| (i + 1, f)).collect();
                let context = timeline::Context {
                    program: &program,
                    source: &source,
                    calls: &notes.calls,
                    findings,
                    happened: &[],
                };
                late.note(file.write(&timeline::render(recorder, &context)));
            }
            // The simulator's own stream: an impossible event is mxpsim's bug.
            if let Some(rejected) = rejected_events(&findings) {
                late.note(Err(Fatal(Failure::Internal, rejected)));
            }
            races
        }
        None => 0,
    };
    if let Some(status) = late.status(&end) {
        return Ok(status);
    }
    // (Not after Ctrl-C: the run was cut short, and so would provoke's runs be.)
    let interrupted_run = matches!(end, RunEnd::Interrupted { .. });
    if let Some((image, cmdline)) = again.filter(|_| races > 0 && !interrupted_run) {
        let run = ProvokeRun {
            max_insns: args.max_insns,
            max_cycles: args.max_cycles,
            race_uncached: args.report.race_uncached,
            options: args.report.options(),
            ..ProvokeRun::new(&config, &image, &source, cmdline)
        };
        let (provoked, stop) = run.provoke(&crate::provoke::Selection::All)?;
        let text = "\n".to_string() + &crate::provoke::text::render(&provoked);
        crate::diag::write(&text).map_err(io_error("the provoke report", Path::new("standard error")))?;
        interrupted(&stop, PROVOKE_INTERRUPTED.into())?;
    }
    Ok(exit_code::exit_status(crate::diag::unless_lost(end.status()), races, args.report.race_exitcode()))
}

/// Failures after the run: outputs that could not be written, or an impossible event (a
/// bug). Each is said on its own line (a second file that fails is not hidden by the first).
#[derive(Default)]
struct Late(Vec<Fatal>);

impl Late {
    fn note(&mut self, result: Result<(), Fatal>) {
        if let Err(fatal) = result {
            self.0.push(fatal);
        }
    }

    /// Says every failure and gives the status, if there was one: a run that did not finish
    /// keeps its own status, which its explanation has already given (both are rule 2 of
    /// [`exit_code`], and the run's end comes first); only a bug of mxpsim's outranks it;
    /// otherwise the first failure's.
    fn status(self, end: &RunEnd) -> Option<u8> {
        let said: Vec<_> =
            self.0.into_iter().map(|Fatal(failure, message)| (failure, fail(failure, message))).collect();
        let &(failure, code) = said.iter().find(|&&(failure, _)| failure == Failure::Internal).or(said.first())?;
        Some(match end.status() {
            Err(own) if failure != Failure::Internal => own.code(),
            _ => code,
        })
    }
}

/// Where one race report goes: the `--report-file` created up front; else a human report
/// to standard error (after the firmware's own output) and, for `detect`, which has no
/// console to share, a machine-readable one to standard output.
enum ReportOut {
    Stderr,
    Stdout,
    File(OutFile),
}

/// Every report a race check writes, each in its format: the main one (`--report-format`,
/// `--report-file`), then each `--report-also`.
struct ReportOuts(Vec<(ReportFormat, ReportOut)>);

impl ReportOuts {
    fn open(args: &ReportArgs) -> Result<ReportOuts, Fatal> {
        let format = args.report_format.unwrap_or(ReportFormat::Human);
        let main = match OutFile::create_opt("the race report", args.report_file.as_deref())? {
            Some(file) => ReportOut::File(file),
            None if format.is_data() => ReportOut::Stdout,
            None => ReportOut::Stderr,
        };
        let mut outs = vec![(format, main)];
        for (format, file) in &args.report_also {
            outs.push((*format, ReportOut::File(OutFile::create("the race report", file)?)));
        }
        Ok(ReportOuts(outs))
    }
}

impl ReportOut {
    fn write(self, text: &str) -> Result<(), Fatal> {
        match self {
            ReportOut::Stderr => {
                crate::diag::write(text).map_err(io_error("the race report", Path::new("standard error")))
            }
            ReportOut::Stdout => write_stdout(text, "the race report"),
            ReportOut::File(file) => file.write(text),
        }
    }
}

fn race_checker(report: &ReportArgs, geometry: CacheGeometry, halt_on_race: bool) -> Result<RaceCheck, Fatal> {
    let config = DetectorConfig { geometry, cpu_uncached_vs_cache: report.race_uncached };
    RaceCheck::new(config, halt_on_race).map_err(|e| Fatal(Failure::InvalidConfig, e.to_string()))
}

/// What a race check found, with what its report needs to name it.
struct Checked<'a> {
    findings: &'a Findings,
    source: &'a SourceMap,
    notes: &'a RunNotes,
    end: &'a RunEnd,
    /// The machine of the run (`detect` knows only the trace's cache geometry).
    machine: Option<&'a MachineConfig>,
}

/// Builds the race report of what a check `found` and writes it to each of `outs`; returns
/// the number of findings no suppression matched, and the outputs that failed (each is
/// still tried).
fn report_races(
    args: &ReportArgs,
    outs: ReportOuts,
    suppressions: &[Suppression],
    found: Checked,
) -> (usize, Vec<Fatal>) {
    let Checked { findings, source, notes, end, machine } = found;
    let mut built = report::build(findings, source, notes, &args.options(), end.clone());
    suppress::apply(&mut built, suppressions);
    let verbose = tracing::enabled!(tracing::Level::INFO);
    let failed = outs
        .0
        .into_iter()
        .filter_map(|(format, out)| {
            let text = match format {
                ReportFormat::Human => {
                    let colour = matches!(out, ReportOut::Stderr)
                        && io::stderr().is_terminal()
                        && std::env::var_os("NO_COLOR").is_none();
                    report::text::render(&built, colour, verbose)
                }
                ReportFormat::Json => report::json::render(&built, machine),
                ReportFormat::Sarif => {
                    // Relative to the current directory, as DWARF's absolute paths are.
                    let cwd = std::env::current_dir().unwrap_or_default();
                    let root = args.source_root.as_ref().map_or(cwd.clone(), |dir| cwd.join(dir));
                    report::sarif::render(&built, &report::sarif::SourceRoot(&root))
                }
            };
            out.write(&text).err()
        })
        .collect();
    (built.findings.len(), failed)
}

fn sweep(args: &SweepArgs) -> Result<u8, Fatal> {
    if let Some(SweepCommand::Merge(merge)) = &args.merge {
        return sweep_merge(merge);
    }
    let mut files = Files::default();
    for program in &args.programs {
        files.input("a program", Some(program));
    }
    files.input("--grid", args.grid.as_deref()).input("--machine", args.machine.file());
    args.table.files(&mut files);
    distinct(&files)?;
    let base = args.machine.machine().map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let mut axes = [
        Axis::new("line", &args.line),
        Axis::new("wb", &args.wb),
        Axis::new("size", &args.size),
        Axis::new("ways", &args.ways),
        Axis::new("policy", &args.policy),
        Axis::new("write", &args.write),
    ];
    if let Some(path) = &args.grid {
        let text = crate::input::read_to_string(path)
            .map_err(|e| Fatal(Failure::InvalidConfig, format!("cannot read {}: {e}", path.display())))?;
        let path = path.display().to_string();
        crate::sweep::add_grid_file(&mut axes, &path, &text)
            .map_err(|e| Fatal(Failure::InvalidConfig, format!("{path}: {e}")))?;
    }
    let variants = crate::sweep::grid(&base, &axes).map_err(|e| Fatal(Failure::InvalidConfig, e))?;
    let shard = args.shard.unwrap_or(crate::sweep::Shard::WHOLE);
    let outputs = TableOut::create(&args.table)?;
    let progress = io::stderr().is_terminal();
    let limits = Limits { max_insns: Some(args.max_insns), max_cycles: args.max_cycles, stop: stop_on_signals()? };
    // (Before the runs: the programs' fingerprints are those of the files the cells run.)
    let grid = crate::sweep::GridId::new(&args.programs, &variants, &limits, &base);
    let rows = crate::sweep::sweep(&args.programs, &variants, &limits, shard, progress)
        .map_err(|(path, e)| Fatal(e.failure(), format!("{}: {e}", path.display())))?;
    // After a signal: the cells that ran (the last ones cut short) are delivered, then said to
    // be only part of the grid.
    let partial = format!(
        "sweep: interrupted; the results hold the {} of its {} cells that had started (a cell cut short says so)",
        rows.len(),
        shard.cells(args.programs.len() * variants.len())
    );
    let status = if let Some(shard) = args.shard {
        // A shard delivers its rows; the merge decides the sweep's status (and refuses cells
        // missing from an interrupted shard).
        write_stdout(&crate::sweep::shard_lines(&grid, shard, &rows), "the shard's rows")?;
        0
    } else {
        let rows: Vec<crate::sweep::Row> = rows.into_iter().map(|(_, row)| row).collect();
        outputs.deliver(&rows)?
    };
    interrupted(&limits.stop, partial)?;
    Ok(status)
}

/// A sweep's outputs, created before it runs.
struct TableOut {
    csv: Option<OutFile>,
    json: Option<OutFile>,
    exit_zero: bool,
}

impl TableArgs {
    fn files<'a>(&'a self, files: &mut Files<'a>) {
        files.output("--csv", self.csv.as_deref()).output("--json", self.json.as_deref());
    }
}

impl TableOut {
    fn create(args: &TableArgs) -> Result<TableOut, Fatal> {
        let csv = OutFile::create_opt("the CSV table", args.csv.as_deref())?;
        let json = OutFile::create_opt("the JSON table", args.json.as_deref())?;
        Ok(TableOut { csv, json, exit_zero: args.exit_zero })
    }

    /// The table on standard output, the CSV and JSON files; the sweep's exit status.
    fn deliver(self, rows: &[crate::sweep::Row]) -> Result<u8, Fatal> {
        write_stdout(&crate::sweep::table(rows), "the table")?;
        if let Some(file) = self.csv {
            file.write(&crate::sweep::csv(rows))?;
        }
        if let Some(file) = self.json {
            file.write(&crate::sweep::json(rows))?;
        }
        Ok(if self.exit_zero { 0 } else { crate::sweep::exit_status(rows, RACES_FOUND) })
    }
}

/// `mxpsim sweep merge`: the shards' rows as one sweep's results.
fn sweep_merge(args: &MergeArgs) -> Result<u8, Fatal> {
    let mut files = Files::default();
    for shard in &args.shards {
        files.input("a shard", Some(shard));
    }
    args.table.files(&mut files);
    distinct(&files)?;
    let outputs = TableOut::create(&args.table)?;
    let mut shards = Vec::new();
    for path in &args.shards {
        let text = crate::input::read_to_string(path).map_err(|e| match e.kind() {
            // Read, but not text: a binary file given by mistake, not an unreadable one.
            io::ErrorKind::InvalidData => {
                Fatal(Failure::BadShards, format!("{}: not the output of `sweep --shard` (not text)", path.display()))
            }
            _ => Fatal(Failure::Unreadable, format!("{}: {e}", path.display())),
        })?;
        shards.push((path.display().to_string(), text));
    }
    let rows = crate::sweep::merge(&shards).map_err(|e| Fatal(Failure::BadShards, format!("sweep merge: {e}")))?;
    outputs.deliver(&rows)
}

fn detect(args: &DetectArgs) -> Result<u8, Fatal> {
    let mut files = Files::default();
    files.input("the trace", Some(&args.trace)).input("--elf", args.elf.as_deref());
    args.report.files(&mut files);
    distinct(&files)?;
    let file =
        File::open(&args.trace).map_err(|e| Fatal(Failure::Unreadable, format!("{}: {e}", args.trace.display())))?;
    // A trace that ends too soon, even inside its header, was cut short; a file that cannot
    // be read (a directory) is unreadable, as for `run`; any other fault is damage.
    let bad_trace = |e: TraceError| {
        let failure = match e {
            TraceError::Cut { .. } => Failure::CutTrace,
            TraceError::Io(_) => Failure::Unreadable,
            _ => Failure::BadTrace,
        };
        Fatal(failure, format!("{}: {e}", args.trace.display()))
    };
    let reader = TraceReader::new(io::BufReader::new(file)).map_err(bad_trace)?;
    let source = match &args.elf {
        Some(elf) => {
            let image = elf::load(elf).map_err(|e| Fatal(e.failure(), format!("{}: {e}", elf.display())))?;
            // The trace's races stand; only their names would come from the wrong file.
            if image.fingerprint() != reader.header.firmware {
                crate::diag!(
                    "mxpsim: warning: {}: not the firmware the trace was recorded from (its code or data differ); \
                     the report's names and source lines may be wrong",
                    elf.display()
                );
            }
            SourceMap::of(&image)
        }
        None => SourceMap::new(Default::default(), None),
    };
    let out = ReportOuts::open(&args.report)?;
    let suppressions = args.report.suppressions()?;
    // The geometry is the trace's: a bad one is a damaged trace, not a bad configuration.
    let mut race = race_checker(&args.report, reader.header.geometry, false)
        .map_err(|Fatal(_, message)| Fatal(Failure::BadTrace, format!("{}: {message}", args.trace.display())))?;
    let header = reader.header.clone();
    let mut notes = RunNotes::default();
    let mut end = None;
    let mut events = 0;
    // Events the recorded machine cannot have produced: how many, and the first.
    let mut impossible = (0u64, None);
    let stop = stop_on_signals()?;
    for frame in reader {
        // A signal: the events read so far are analysed and reported, then said to be a part.
        if stop.reason().is_some() {
            end = Some(RunEnd::RecordingCut { events });
            break;
        }
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => match e.intact_frames() {
                Some(_) if args.partial => {
                    crate::diag!(
                        "mxpsim: warning: {}: {e}; analysing the {events} events before it (--partial)",
                        args.trace.display()
                    );
                    end = Some(RunEnd::RecordingCut { events });
                    break;
                }
                Some(frames) => {
                    let Fatal(failure, message) = bad_trace(e);
                    let message =
                        format!("{message} ({frames} intact frames, {events} events); --partial analyses them");
                    return Err(Fatal(failure, message));
                }
                None => return Err(bad_trace(e)),
            },
        };
        match frame {
            Frame::Event(event) => {
                events += 1;
                match header.admits(&event) {
                    Ok(()) => race.emit(event),
                    Err(why) => {
                        impossible.0 += 1;
                        impossible.1.get_or_insert(format!("event {events}: {why}"));
                    }
                }
            }
            Frame::Heap(event) => notes.heap.push(event),
            Frame::Calls(nodes) => {
                notes.calls = CallTree::from_nodes(nodes).ok_or_else(|| bad_trace(TraceError::Corrupt { frame: 0 }))?
            }
            Frame::Trailer(trailer) => {
                let recorded = serde_json::from_str(&trailer.end);
                end = Some(recorded.map_err(|_| bad_trace(TraceError::Damaged { frames: trailer.frames }))?)
            }
        }
    }
    let end = end.expect("the reader ends with the trailer or an error");
    let findings = race.finish();
    let rejected = match impossible {
        (count, Some(first)) => Some(format!(
            "events naming bytes outside the recorded machine: {count} (the first: {first}); the report covers the others"
        )),
        _ => rejected_events(&findings),
    };
    let found = Checked { findings: &findings, source: &source, notes: &notes, end: &end, machine: None };
    let (races, failed) = report_races(&args.report, out, &suppressions, found);
    // Each failure is said, in order; the first gives the status.
    let codes: Vec<u8> = failed.into_iter().map(|Fatal(failure, message)| fail(failure, message)).collect();
    if let Some(&code) = codes.first() {
        return Ok(code);
    }
    interrupted(&stop, format!("detect: interrupted; the report covers the first {events} events of the trace"))?;
    if let Some(rejected) = rejected {
        return Err(Fatal(Failure::BadTrace, format!("{}: {rejected}", args.trace.display())));
    }
    // The recorded run's failure is not this command's: only races decide.
    Ok(exit_code::exit_status(crate::diag::unless_lost(Ok(0)), races, args.report.race_exitcode()))
}

/// The events the detector rejected, in a sentence (`None` when it took them all): impossible
/// in a stream mxpsim recorded, so the stream is damaged (or the simulator has a bug).
fn rejected_events(findings: &Findings) -> Option<String> {
    let first = findings.first_stream_error.as_ref()?;
    Some(format!(
        "events the race detector rejects as impossible in a run: {} (the first: {first}); the report covers the others",
        findings.stream_errors
    ))
}

/// What a run shows: while it runs (the progress line), and the output files written once it
/// has ended.
struct Outputs {
    progress: Option<ProgressLine>,
    /// The timeline to record.
    timeline: Option<Recorder>,
    stats: Option<OutFile>,
    /// The signature region and its file.
    signature: Option<((u32, u32), OutFile)>,
}

/// One fault in a sentence: what, where, the instruction, and what the address holds or the
/// instruction needs.
fn describe_fault(fault: &Fault, at: &str) -> String {
    let insn = fault.raw.map_or(String::new(), |raw| format!(" `{}`", disassemble(raw)));
    let addr = fault.trap.tval;
    let mapped = || match &fault.region {
        Some(region) => format!("{addr:#010x} is in {region}, which does not take this access"),
        None => format!("nothing is mapped at {addr:#010x}{}", qemu_virt_device(addr)),
    };
    let detail = match fault.trap.cause {
        Cause::IllegalInsn => match unimplemented_extension(addr) {
            Some(ext) => format!(
                ": an instruction of the {ext} extension, which mxpsim does not implement (it runs RV32IMAC with Zicsr, Zifencei and Zicbom)"
            ),
            None => String::new(),
        },
        Cause::LoadAccessFault | Cause::StoreAccessFault | Cause::InsnAccessFault => format!(": {}", mapped()),
        Cause::InsnMisaligned => format!(": {addr:#010x} is odd (instructions are 2-byte aligned)"),
        Cause::LoadMisaligned | Cause::StoreMisaligned => {
            format!(": {addr:#010x} is not 4-byte aligned (atomic instructions need aligned words)")
        }
        _ => String::new(),
    };
    format!("the firmware took a trap: {} at {at}{insn}{detail}", fault.trap.cause.describe())
}

/// ` (the `virt` machine has the UART there: --machine virt)`: what firmware written for
/// QEMU's `virt` board expects at an address this machine leaves unmapped.
fn qemu_virt_device(addr: u32) -> String {
    // A device of a machine preset: the option that gives it.
    for (name, _) in crate::config::PRESETS {
        let Some(Ok(preset)) = MachineConfig::preset(name) else { continue };
        let entries = layout(&preset.memory, &preset.mxp, &preset.devices);
        let part = entries.iter().find(|e| e.offset(addr, 1).is_some()).map(|e| e.part);
        if let Some(device @ (Part::Clint | Part::Uart)) = part {
            let device = device.describe(&preset.memory);
            return format!(" (the `{name}` machine has {device} there: --machine {name})");
        }
    }
    const QEMU_ONLY: [(u32, u32, &str); 2] = [
        (0x0c00_0000, 0x400_0000, " (QEMU virt has its PLIC there; mxpsim has none)"),
        (0x1000_1000, 0x8000, " (QEMU virt has virtio devices there; mxpsim has none)"),
    ];
    QEMU_ONLY
        .iter()
        .find(|&&(base, size, _)| addr.wrapping_sub(base) < size)
        .map_or(String::new(), |&(_, _, hint)| hint.into())
}

/// Builds the machine with its event sink and runs it; prints why the run ended when that
/// is not the firmware's own exit. Returns how it ended, the sink, the run's notes, and the
/// failures writing its late outputs (the caller still delivers the race report).
fn simulate<S: EventSink + RacesSoFar>(
    args: &RunArgs,
    config: &MachineConfig,
    image: elf::Image,
    host: Semihost,
    sink: S,
    outputs: Outputs,
) -> Result<(RunEnd, S, RunNotes, Late), Fatal> {
    let path = args.firmware.display();
    let mut machine = Machine::new(config, image, host, sink).map_err(does_not_fit(&args.firmware))?;
    if let Some(tohost) = machine.ignored_tohost() {
        crate::diag!(
            "mxpsim: warning: {path}: the symbol `tohost` ({tohost:#010x}) is not 8 aligned, writable bytes of memory: \
             ignored (the run ends only by semihosting, a limit or Ctrl-C)"
        );
    }
    if let Some(stdin) = crate::uart_input::StdinInput::open() {
        machine.bus.connect_uart_input(Box::new(stdin));
    }
    if S::ENABLED {
        machine.watch_heap();
    }
    if let Some(recorder) = outputs.timeline {
        machine.bus.record_timeline(recorder);
    }
    let mut late = Late::default();
    let limits = Limits { max_insns: args.max_insns, max_cycles: args.max_cycles, ..Limits::default() };
    let with_signals = |mut limits: Limits| -> Result<Limits, Fatal> {
        limits.stop = stop_on_signals()?;
        Ok(limits)
    };
    // (Under GDB, Ctrl-C belongs to the debugger, until it has left.)
    machine.set_limits(if args.gdb.is_some() { limits.clone() } else { with_signals(limits.clone())? });
    let mut progress = outputs.progress;
    let mut show = |m: &Machine<S>| progress.iter_mut().for_each(|line| line.update(m));
    let outcome = match (&args.trace, args.gdb) {
        (None, Some(port)) => {
            let listener = gdb::listen(port).map_err(|e| Fatal(Failure::HostIo, format!("--gdb {port}: {e}")))?;
            match gdb::serve(listener, &mut machine).map_err(|e| Fatal(Failure::HostIo, e))? {
                Some(outcome) => outcome,
                None => {
                    machine.set_limits(with_signals(limits)?);
                    machine.run(&mut (), &mut show)
                }
            }
        }
        (None, None) => machine.run(&mut (), &mut show),
        (Some(trace), _) => {
            let what = "the instruction trace";
            let mut tracer = Tracer::new(OutFile::create(what, trace)?.out);
            let outcome = machine.run(&mut tracer, &mut show);
            late.note(tracer.finish().map_err(io_error(what, trace)));
            outcome
        }
    };
    drop(progress);
    // The firmware's console: a reader that went away ends mxpsim as a closed pipe does any
    // filter (after the report); another error (a full disk) is reported once.
    if let Some(e) = machine.console_error() {
        late.note(Err(match e.kind() {
            io::ErrorKind::BrokenPipe => Fatal(Failure::ClosedPipe, String::new()),
            _ => Fatal(Failure::HostIo, format!("cannot write the firmware's output to standard output: {e}")),
        }));
    }
    let stats = machine.stats();
    if args.stats {
        crate::diag!("{stats}");
    }
    if let Some(file) = outputs.stats {
        let json = serde_json::to_string_pretty(&stats).expect("statistics are plain data") + "\n";
        late.note(file.write(&json));
    }
    if let Some((range, file)) = outputs.signature {
        let signature = machine.signature(range, args.signature_granularity);
        let signature = signature.map_err(|e| Fatal(Failure::HostIo, format!("--signature: {e}")));
        late.note(signature.and_then(|text| file.write(&text)));
    }
    explain(&machine, &outcome);
    let notes = machine.notes();
    Ok((outcome.end(), machine.into_sink(), notes, late))
}

/// Explains on standard error an outcome that is not the firmware's own exit, and, whatever
/// the firmware's trap handler made of them, the faults it took.
fn explain<S: EventSink>(machine: &Machine<S>, outcome: &Outcome) {
    let at = |pc| machine.symbols.describe(pc);
    // A trap loop's message below names its first fault already.
    if !matches!(outcome, Outcome::TrapLoop { .. }) {
        let (faults, total) = machine.faults();
        for fault in &faults {
            crate::diag!("mxpsim: note: {}", describe_fault(fault, &at(fault.pc).to_string()));
        }
        if total > faults.len() as u64 {
            crate::diag!("mxpsim: note: and {} more faults", total - faults.len() as u64);
        }
    }
    let error = |message: std::fmt::Arguments| crate::diag!("mxpsim: error: {message}");
    match *outcome {
        // (A closed pipe ends quietly, as `fail` has it.)
        Outcome::Exited(_) | Outcome::ToHost(1) | Outcome::Interrupted { signal: Signal::Pipe, .. } => {}
        Outcome::ToHost(value) => crate::diag!("mxpsim: tohost = {value:#x}: test {} failed", value >> 1),
        Outcome::InsnLimit { limit, pc } => error(format_args!(
            "instruction limit reached: {limit} instructions executed, the firmware has not exited (pc {})",
            at(pc)
        )),
        Outcome::CycleLimit { limit, now, pc } => error(format_args!(
            "cycle limit reached: the clock is at cycle {now} (--max-cycles {limit}), the firmware has not exited (pc {})",
            at(pc)
        )),
        Outcome::Interrupted { signal, pc, instructions } => error(format_args!(
            "interrupted by {} after {instructions} instructions (pc {}); what the run has is delivered",
            signal.name(),
            at(pc)
        )),
        Outcome::Asleep { pc, mie } => {
            let why = match mie {
                0 => "no interrupt is enabled in mie".to_string(),
                enabled if enabled & Interrupt::Timer.bit() != 0 => {
                    "the timer interrupt is enabled but mtimecmp is out of mtime's reach, and nothing else can wake the hart".into()
                }
                enabled => format!("mie = {enabled:#x} enables only interrupts no device here raises by itself"),
            };
            error(format_args!("the firmware waits for an interrupt that can never come (wfi at {}): {why}", at(pc)))
        }
        Outcome::Killed { pc } => error(format_args!("the debugger ended the run (kill) at pc {}", at(pc))),
        Outcome::HaltedOnRace { pc } => crate::diag!("mxpsim: stopped at the first race (--halt-on-race), pc {}", at(pc)),
        Outcome::Accelerator(ref e) => error(format_args!("accelerator: {e} (command issued at {})", at(e.pc))),
        Outcome::TrapLoop { first, first_pc, second, second_pc, mtvec, kind } => {
            // An illegal instruction may be a well-formed one used where it is not allowed
            // (a CSR from U-mode, say): then its text helps.
            let text = disassemble(first.tval);
            let what = match first.cause {
                Cause::IllegalInsn if !text.starts_with("unknown") => format!(" `{text}`"),
                _ => String::new(),
            };
            let why = match kind {
                LoopKind::Retry => "it returns to the instruction, which traps again at once, time after time".to_string(),
                LoopKind::SameState => "the same trap comes back, time after time, with every register and CSR as \
                    before and no memory access, host call, interrupt or counter read in between: nothing can change"
                    .to_string(),
                LoopKind::Unhandled | LoopKind::Faulting => format!("{second} at {}", at(second_pc)),
            };
            error(format_args!(
                "unhandled trap: {first}{what} at {}; the trap handler at mtvec {mtvec:#010x} cannot get through: {why}",
                at(first_pc)
            ))
        }
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
    fn long_words_in_messages_are_cut() {
        let value = "a".repeat(100_000);
        let cut = shorten_words(&format!("bad value '{value}' for size\n  hint"));
        assert_eq!(cut, format!("bad value '{}… (100002 bytes)' for size\n  hint", "a".repeat(59)));
        let kept = format!("a path /{} stays", "p".repeat(238));
        assert_eq!(shorten_words(&kept), kept);
        assert_eq!(shorten_words("  é  "), "  é  ");
    }
}

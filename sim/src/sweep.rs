//! `mxpsim sweep`: the same firmware over a grid of cache configurations, in parallel (one
//! simulation per core), with the race checker on: cycles, cache behaviour and race verdicts
//! side by side, in one deterministic table (or CSV / JSON).

use crate::config::MachineConfig;
use crate::elf::{self, ElfError};
use crate::exit_code::RunEnd;
use crate::machine::{Limits, Machine};
use crate::race_check::RaceCheck;
use crate::semihost::Semihost;
use mxpsim_detector::Config as DetectorConfig;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// One cell of the grid: a program under one configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub program: String,
    /// The `--cache` spelling of the configuration.
    pub cache: String,
    /// How the run ended.
    pub outcome: RunEnd,
    pub instructions: u64,
    pub cycles: u64,
    pub miss_rate: f64,
    pub writebacks: u64,
    pub races: usize,
    /// Kinds of each distinct race, e.g. `wb/dma_r`, joined by spaces.
    pub signature: String,
}

/// A cache configuration of the grid: its `--cache` spelling and the machine it gives.
pub struct Variant {
    pub spec: String,
    pub config: MachineConfig,
}

/// One axis of the grid: the `--cache` key it sets and its values, in the order given, each
/// with where it was given (to name it in an error).
pub struct Axis {
    pub key: &'static str,
    pub values: Vec<(String, Given)>,
}

/// Where a value of the grid was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Given {
    /// The axis's command-line option (`--line 16,32`).
    Option,
    /// A grid file (`--grid FILE`), by its path as given.
    File(String),
}

impl Axis {
    /// The axis `key` with the values of its command-line option.
    pub fn new(key: &'static str, values: &[String]) -> Axis {
        Axis { key, values: values.iter().map(|v| (v.clone(), Given::Option)).collect() }
    }

    /// How an error names `value` of this axis: as the option or the file line gave it.
    fn name(&self, value: &str, given: &Given) -> String {
        match given {
            Given::Option => format!("--{} {value}", self.key),
            Given::File(path) => format!("{path}: {} = {value}", self.key),
        }
    }
}

/// The grid: every combination of the axes' values (an axis without values leaves the base
/// as it is), applied to `base` in the axes' order. A value that gives the same machine as
/// one before it on its axis (`--line 16,16`, or a value in both the grid file and the
/// option) adds no cells: each configuration is run once.
pub fn grid(base: &MachineConfig, axes: &[Axis]) -> Result<Vec<Variant>, String> {
    let mut variants = vec![Variant { spec: String::new(), config: base.clone() }];
    for axis in axes.iter().filter(|axis| !axis.values.is_empty()) {
        let mut next: Vec<Variant> = Vec::new();
        for v in &variants {
            let first_child = next.len();
            for (value, given) in &axis.values {
                let item = format!("{}={value}", axis.key);
                let mut config = v.config.clone();
                let named = |e: String| format!("{}: {e}", axis.name(value, given));
                config.apply_cache_overrides(&item).map_err(|e| named(e.to_string()))?;
                config.validate().map_err(|e| named(e.to_string()))?;
                if next[first_child..].iter().any(|sibling| sibling.config == config) {
                    continue;
                }
                let spec = if v.spec.is_empty() { item } else { format!("{},{item}", v.spec) };
                next.push(Variant { spec, config });
            }
        }
        variants = next;
    }
    Ok(variants)
}

/// Adds the lists of a TOML grid file (`line = [16, 32]`, `wb = ["line", "byte"]`, …) read
/// from `path` to the axes; an unknown key, an empty list or a value that is not a list of
/// numbers or strings is an error.
pub fn add_grid_file(axes: &mut [Axis], path: &str, text: &str) -> Result<(), String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.message().to_string())?;
    let keys = axes.iter().map(|axis| axis.key).collect::<Vec<_>>().join(", ");
    for (key, value) in table {
        let axis =
            axes.iter_mut().find(|axis| axis.key == key).ok_or_else(|| format!("unknown key '{key}' ({keys})"))?;
        let list = value.as_array().ok_or_else(|| format!("{key}: not a list"))?;
        if list.is_empty() {
            return Err(format!("{key}: an empty list (give it values, or leave the key out)"));
        }
        for item in list {
            let value = match item {
                toml::Value::Integer(n) => n.to_string(),
                toml::Value::String(s) => s.clone(),
                other => return Err(format!("{key}: {other} is not a number or a string")),
            };
            axis.values.push((value, Given::File(path.to_string())));
        }
    }
    Ok(())
}

/// Runs one program under one configuration.
fn run_one(path: &Path, variant: &Variant, limits: &Limits) -> Result<Row, ElfError> {
    let image = elf::load(path)?;
    let source = crate::source_map::SourceMap::of(&image);
    let config = &variant.config;
    let cmdline = crate::semihost::command_line(path, &[]).expect("no arguments to refuse");
    let host = Semihost::new(Box::new(std::io::sink()), Box::new(std::io::sink()), cmdline, config.clock_hz);
    let detector = DetectorConfig { geometry: config.geometry(), cpu_uncached_vs_cache: false };
    let race = RaceCheck::new(detector, false).expect("validated line size");
    let program = path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut machine = match Machine::new(config, image, host, race) {
        Ok(m) => m,
        Err(e) => return Ok(failed_row(program, variant, RunEnd::DoesNotFit { message: e.to_string() })),
    };
    machine.set_limits(limits.clone());
    let outcome = machine.run(&mut (), |_| {}).end();
    let stats = machine.stats();
    let notes = machine.notes();
    let findings = machine.into_sink().finish();
    // Races counted as the report counts them: one per root cause.
    let report = crate::report::build(&findings, &source, &notes, &Default::default(), outcome.clone());
    let signature = report.findings.iter().map(|f| f.class()).collect::<Vec<_>>().join(" ");
    let cache = stats.cache.unwrap_or_default();
    Ok(Row {
        program,
        cache: variant.spec.clone(),
        outcome,
        instructions: stats.instructions,
        cycles: stats.cycles,
        miss_rate: cache.miss_rate(),
        writebacks: cache.writebacks,
        races: report.findings.len(),
        signature,
    })
}

fn failed_row(program: String, variant: &Variant, outcome: RunEnd) -> Row {
    Row {
        program,
        cache: variant.spec.clone(),
        outcome,
        instructions: 0,
        cycles: 0,
        miss_rate: 0.0,
        writebacks: 0,
        races: 0,
        signature: String::new(),
    }
}

/// A slice of the grid: the cells `k`, `k + n`, `k + 2n`, … of the program-then-variant
/// order (`mxpsim sweep --shard K/N`). Round-robin, so that a slow program's cells spread
/// over the shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    pub const WHOLE: Shard = Shard { k: 0, n: 1 };

    /// `K/N`, 0 ≤ K < N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || "expected K/N with 0 <= K < N, e.g. 0/4".to_string();
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if k >= n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    fn holds(self, cell: usize) -> bool {
        cell % self.n == self.k
    }

    /// How many of a grid of `total` cells are this shard's.
    pub fn cells(self, total: usize) -> usize {
        (0..total).filter(|&cell| self.holds(cell)).count()
    }
}

/// Runs every program under every variant of `shard`'s cells, on every core: (cell, row)
/// in program-then-variant order whatever the scheduling. A program that cannot be loaded
/// fails the sweep. Once `stop` is set, the cells running end as interrupted and the cells
/// not started yet are left out.
pub fn sweep(
    programs: &[PathBuf],
    variants: &[Variant],
    limits: &Limits,
    shard: Shard,
    progress: bool,
) -> Result<Vec<(usize, Row)>, (PathBuf, ElfError)> {
    let jobs: Vec<(usize, (usize, usize))> = (0..programs.len())
        .flat_map(|p| (0..variants.len()).map(move |v| (p, v)))
        .enumerate()
        .filter(|&(cell, _)| shard.holds(cell))
        .collect();
    let bar = if progress { indicatif::ProgressBar::new(jobs.len() as u64) } else { indicatif::ProgressBar::hidden() };
    let rows = jobs
        .par_iter()
        .filter(|_| limits.stop.reason().is_none())
        .map(|&(cell, (p, v))| {
            let row = run_one(&programs[p], &variants[v], limits).map_err(|e| (programs[p].clone(), e));
            bar.inc(1);
            row.map(|row| (cell, row))
        })
        .collect();
    bar.finish_and_clear();
    rows
}

/// The table for a terminal.
pub fn table(rows: &[Row]) -> String {
    let cache_width = rows.iter().map(|r| r.cache.len()).max().unwrap_or(0).max(5);
    let program_width = rows.iter().map(|r| r.program.len()).max().unwrap_or(0).max(7);
    let statuses: Vec<String> = rows.iter().map(|r| r.outcome.to_string()).collect();
    let status_width = statuses.iter().map(String::len).max().unwrap_or(0).max(6);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<program_width$}  {:<cache_width$}  {:>status_width$}  {:>12}  {:>9}  {:>10}  {:>5}  signature",
        "program", "cache", "status", "cycles", "miss rate", "writebacks", "races"
    );
    for (r, status) in rows.iter().zip(&statuses) {
        let row = format!(
            "{:<program_width$}  {:<cache_width$}  {:>status_width$}  {:>12}  {:>8.3}%  {:>10}  {:>5}  {}",
            r.program,
            r.cache,
            status,
            r.cycles,
            100.0 * r.miss_rate,
            r.writebacks,
            r.races,
            r.signature
        );
        // No trailing blanks when a row has no races.
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// The rows as CSV (RFC 4180 quoting where needed).
pub fn csv(rows: &[Row]) -> String {
    let quote = |s: &str| {
        if s.contains([',', '"', ' ', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::from("program,cache,status,instructions,cycles,miss_rate,writebacks,races,signature\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{:.6},{},{},{}",
            quote(&r.program),
            quote(&r.cache),
            quote(&r.outcome.to_string()),
            r.instructions,
            r.cycles,
            r.miss_rate,
            r.writebacks,
            r.races,
            quote(&r.signature)
        );
    }
    out
}

/// The rows as JSON (one object per cell; `outcome` as in the race report).
pub fn json(rows: &[Row]) -> String {
    serde_json::to_string_pretty(rows).expect("plain data") + "\n"
}

/// The sweep's exit status, by the run's precedence rules over its cells: the first cell
/// that failed, else `race_exitcode` if any cell raced, else the first non-zero firmware
/// status, else 0.
pub fn exit_status(rows: &[Row], race_exitcode: u8) -> u8 {
    let ends: Vec<_> = rows.iter().map(|r| r.outcome.status()).collect();
    // The cell that decides, as one run's end: a failure, else a non-zero firmware status.
    let end = ends.iter().find(|e| e.is_err()).or_else(|| ends.iter().find(|e| **e != Ok(0)));
    let races = rows.iter().map(|r| r.races).sum();
    crate::exit_code::exit_status(end.copied().unwrap_or(Ok(0)), races, race_exitcode)
}

/// What identifies a grid, so that only shards of one sweep are merged: the programs (by
/// file name: shards may run where the files live elsewhere; and by what they run: two
/// programs of one name are not taken for one), the variants, the limits and the base
/// machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridId {
    pub programs: Vec<String>,
    /// The programs' [`crate::elf::Image::fingerprint`]s (0 for a file that does not load:
    /// its cells say why). (Absent in a shard of format 1, which is then refused by its
    /// format, not as an unreadable header.)
    #[serde(default)]
    pub firmware: Vec<u32>,
    pub variants: Vec<String>,
    pub max_insns: u64,
    /// (Absent in the shards of a build before `--max-cycles`: none.)
    #[serde(default)]
    pub max_cycles: Option<u64>,
    /// CRC-32 of the base machine's TOML (`mxpsim config`).
    pub machine: u32,
}

impl GridId {
    pub fn new(programs: &[PathBuf], variants: &[Variant], limits: &Limits, base: &MachineConfig) -> GridId {
        GridId {
            programs: programs.iter().map(|p| elf::file_name(p)).collect(),
            firmware: programs.iter().map(|p| elf::load(p).map_or(0, |image| image.fingerprint())).collect(),
            variants: variants.iter().map(|v| v.spec.clone()).collect(),
            max_insns: limits.max_insns.unwrap_or(u64::MAX),
            max_cycles: limits.max_cycles,
            machine: crc32fast::hash(base.to_toml().as_bytes()),
        }
    }

    fn cells(&self) -> usize {
        self.programs.len() * self.variants.len()
    }
}

/// The first line of a shard's output.
#[derive(Debug, Serialize, Deserialize)]
struct ShardHeader {
    mxpsim_sweep_shard: u32,
    shard: String,
    grid: GridId,
}

/// A row line of a shard's output.
#[derive(Debug, Serialize, Deserialize)]
struct ShardRow {
    cell: usize,
    row: Row,
}

/// The version of the shard format (raised when it changes).
const SHARD_FORMAT: u32 = 2;

/// A shard's rows as JSON lines: a header (the grid, the shard), then one line per cell.
pub fn shard_lines(grid: &GridId, shard: Shard, rows: &[(usize, Row)]) -> String {
    let header =
        ShardHeader { mxpsim_sweep_shard: SHARD_FORMAT, shard: format!("{}/{}", shard.k, shard.n), grid: grid.clone() };
    let mut out = serde_json::to_string(&header).expect("plain data") + "\n";
    for (cell, row) in rows {
        out += &(serde_json::to_string(&ShardRow { cell: *cell, row: row.clone() }).expect("plain data") + "\n");
    }
    out
}

/// Joins shards' outputs (`(name, text)`) into the rows of the whole grid, in its order; an
/// error names what does not fit: another grid, a cell twice, cells missing.
pub fn merge(shards: &[(String, String)]) -> Result<Vec<Row>, String> {
    let mut grid: Option<(GridId, &str)> = None;
    let mut cells: Vec<Option<(Row, &str)>> = Vec::new();
    for (name, text) in shards {
        let mut lines = text.lines().enumerate();
        let (_, first) = lines.next().ok_or_else(|| format!("{name}: empty (not the output of `sweep --shard`)"))?;
        let header: ShardHeader =
            serde_json::from_str(first).map_err(|e| format!("{name}: line 1: not a sweep shard header ({e})"))?;
        if header.mxpsim_sweep_shard != SHARD_FORMAT {
            return Err(format!(
                "{name}: shard format {} (this mxpsim reads {SHARD_FORMAT})",
                header.mxpsim_sweep_shard
            ));
        }
        match &grid {
            None => {
                cells = vec![None; header.grid.cells()];
                grid = Some((header.grid, name));
            }
            Some((g, first)) if *g != header.grid => {
                return Err(format!(
                "{name} is a shard of another sweep than {first} (programs, their contents, cache grid, limits or machine differ)"
            ))
            }
            Some(_) => {}
        }
        for (i, line) in lines {
            let r: ShardRow = serde_json::from_str(line).map_err(|e| format!("{name}: line {}: {e}", i + 1))?;
            let slot = cells
                .get_mut(r.cell)
                .ok_or_else(|| format!("{name}: line {}: cell {} is not in the grid", i + 1, r.cell))?;
            if let Some((_, other)) = slot {
                return Err(format!("cell {} is in both {other} and {name}", r.cell));
            }
            *slot = Some((r.row, name));
        }
    }
    let missing: Vec<usize> = cells.iter().enumerate().filter(|(_, c)| c.is_none()).map(|(i, _)| i).collect();
    if let Some(&first) = missing.first() {
        let n = grid.map_or(0, |(g, _)| g.cells());
        return Err(format!(
            "{} of the grid's {n} cells missing (the first: cell {first}): a shard is missing or was cut short",
            missing.len()
        ));
    }
    Ok(cells.into_iter().map(|c| c.expect("none missing").0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes(line: &[&str], wb: &[&str]) -> [Axis; 2] {
        let strings = |values: &[&str]| values.iter().map(|v| v.to_string()).collect::<Vec<_>>();
        [Axis::new("line", &strings(line)), Axis::new("wb", &strings(wb))]
    }

    fn specs(variants: &[Variant]) -> Vec<&str> {
        variants.iter().map(|v| v.spec.as_str()).collect()
    }

    #[test]
    fn every_combination_in_the_axes_order() {
        let variants = grid(&MachineConfig::default(), &axes(&["16", "32"], &["line", "byte"])).unwrap();
        assert_eq!(specs(&variants), ["line=16,wb=line", "line=16,wb=byte", "line=32,wb=line", "line=32,wb=byte"]);
        assert_eq!(variants[3].config.cache.line, 32);
    }

    #[test]
    fn a_value_that_gives_the_same_machine_adds_no_cells() {
        // The same spelling twice, another spelling of the same size, and the file's value
        // that the option gave already.
        let mut axes = axes(&["16", "32", "16", "0x10"], &["byte"]);
        add_grid_file(&mut axes, "g.toml", "line = [32, 64]\nwb = [\"byte\"]").unwrap();
        let variants = grid(&MachineConfig::default(), &axes).unwrap();
        assert_eq!(specs(&variants), ["line=16,wb=byte", "line=32,wb=byte", "line=64,wb=byte"]);
    }

    #[test]
    fn a_bad_value_is_named_where_it_was_given() {
        let mut from_option = axes(&["17"], &[]);
        let e = grid(&MachineConfig::default(), &from_option).err().unwrap();
        assert!(e.starts_with("--line 17: "), "{e}");
        from_option[0].values.clear();
        add_grid_file(&mut from_option, "dir/g.toml", "line = [16, 17]").unwrap();
        let e = grid(&MachineConfig::default(), &from_option).err().unwrap();
        assert!(e.starts_with("dir/g.toml: line = 17: ") && e.contains("power of two"), "{e}");
    }

    #[test]
    fn grid_files_refuse_what_they_cannot_mean() {
        let mut axes = axes(&[], &[]);
        for (text, error) in [
            ("line = []", "line: an empty list"),
            ("colour = [1]", "unknown key 'colour' (line, wb)"),
            ("line = 16", "line: not a list"),
            ("line = [1.5]", "line: 1.5 is not a number or a string"),
        ] {
            let e = add_grid_file(&mut axes, "g.toml", text).err().unwrap();
            assert!(e.starts_with(error), "{text}: {e}");
        }
    }
}

//! The machine's configuration: a TOML file (every field optional; defaults below), then
//! command-line overrides, then validation that names the offending field.
//!
//! ```toml
//! clock_hz = 100000000
//! [memory]
//! dram_base = 0x80000000
//! dram_size = 0x4000000
//! uncached_alias = 0xc0000000
//! sysctl = 0x40000000
//! [cache]
//! enabled = true
//! size = 16384
//! line = 32
//! ways = 4
//! policy = "lru"          # lru | fifo | plru | random
//! write = "back"          # back (write-allocate) | through (no write-allocate)
//! writeback = "line"      # line | dirty-bytes
//! hit_latency = 1
//! write_buffer = 4
//! seed = 1
//! [axi]
//! read_latency = 20
//! write_latency = 20
//! data_width = 4
//! max_burst = 16
//! [cpu]
//! taken_branch = 2
//! jump = 2
//! mul = 2
//! div = 32
//! [mxp]
//! port = 0x40010000
//! scratchpad = 0x50000000
//! scratchpad_size = 0x40000
//! lanes = 4
//! fifo_depth = 16
//! dma_queue = 2
//! mask_waves = 256
//! fxp_frac_bits = [4, 15, 16]
//! custom_lanes = [4, 4]
//! # More memory (any number of regions; none by default): kind "ram" or "rom", cached or not.
//! [[memory.regions]]
//! name = "flash"
//! base = 0x20000000
//! size = 0x4000000
//! kind = "rom"
//! cached = true
//! # Devices: absent by default; the `virt` preset (machines/virt.toml) has both.
//! [devices.clint]
//! base = 0x2000000
//! timebase_hz = 10000000
//! [devices.uart]
//! base = 0x10000000
//! ```

use mxpsim_detector::event::{CacheGeometry, WriteBack};
use mxpsim_models::axi::AxiConfig;
use mxpsim_models::cache::config::{CacheConfig, Policy, WritePolicy};
use mxpsim_models::cpu::timing::CpuTiming;
use mxpsim_models::devices::DevicesConfig;
use mxpsim_models::memory_system::MemoryMap;
use mxpsim_models::mxp::config::MxpConfig;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The simulated machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MachineConfig {
    /// The CPU clock: converts cycles to the seconds the firmware sees through semihosting
    /// (`SYS_CLOCK`, `SYS_TIME`, `SYS_TICKFREQ`).
    pub clock_hz: u32,
    pub memory: MemoryMap,
    pub cache: CacheConfig,
    pub axi: AxiConfig,
    pub cpu: CpuTiming,
    pub mxp: MxpConfig,
    #[serde(skip_serializing_if = "DevicesConfig::is_none")]
    pub devices: DevicesConfig,
}

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
            clock_hz: 100_000_000,
            memory: MemoryMap::default(),
            cache: CacheConfig::default(),
            axi: AxiConfig::default(),
            cpu: CpuTiming::default(),
            mxp: MxpConfig::default(),
            devices: DevicesConfig::default(),
        }
    }
}

/// An invalid configuration, naming the field (`cache.line`, `memory.sysctl`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration: {}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ConfigError {}

fn error(field: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError { field: field.into(), reason: reason.into() }
}

/// The machine presets (`--machine NAME`): each a TOML machine file over the defaults, in
/// `machines/`. The first is the default SoC: the defaults themselves.
pub const PRESETS: &[(&str, &str)] = &[("default", ""), ("virt", include_str!("../../machines/virt.toml"))];

impl MachineConfig {
    /// The preset called `name`, if there is one.
    pub fn preset(name: &str) -> Option<Result<Self, ConfigError>> {
        PRESETS.iter().find(|(n, _)| *n == name).map(|(_, text)| Self::from_toml(text))
    }

    /// Parses a TOML machine file (missing fields keep their defaults).
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let Some(span) = e.span() else { return error(String::new(), e.message()) };
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            error(field_at(text, span.start), format!("{} (line {line})", e.message()))
        })
    }

    /// The configuration as a TOML machine file (addresses and sizes of the memory map in
    /// hexadecimal, as they are usually written).
    pub fn to_toml(&self) -> String {
        let text = toml::to_string(self).expect("the configuration is plain data");
        let mut in_memory = false;
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            if line.starts_with('[') {
                in_memory =
                    matches!(line, "[memory]" | "[[memory.regions]]" | "[mxp]" | "[devices.clint]" | "[devices.uart]");
            }
            match line.split_once(" = ").map(|(k, v)| (k, v.parse::<u32>())) {
                Some((key, Ok(value)))
                    if in_memory
                        && !matches!(key, "lanes" | "fifo_depth" | "dma_queue" | "mask_waves" | "timebase_hz") =>
                {
                    out.push_str(&format!("{key} = {value:#x}"))
                }
                _ => out.push_str(line),
            }
            out.push('\n');
        }
        out
    }

    /// What the race detector needs to know of the cache.
    pub fn geometry(&self) -> CacheGeometry {
        CacheGeometry { line_size: self.cache.line, write_back: self.cache.writeback }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.clock_hz == 0 {
            return Err(error("clock_hz", "must be positive"));
        }
        self.mxp.validate().map_err(|e| error(format!("mxp.{}", e.field), e.reason))?;
        self.devices.validate().map_err(|e| error(format!("devices.{}", e.field), e.reason))?;
        // Accelerator and device regions are named `mxp.…` and `devices.…` already.
        self.memory.validate(&self.mxp, &self.devices).map_err(|e| {
            let field = match e.field.split('.').next() {
                Some("mxp" | "devices") => e.field.to_string(),
                _ => format!("memory.{}", e.field),
            };
            error(field, e.reason)
        })?;
        self.cache.validate().map_err(|e| error(format!("cache.{}", e.field), e.reason))?;
        self.axi.validate().map_err(|e| error(format!("axi.{}", e.field), e.reason))?;
        Ok(())
    }

    /// Applies `--cache` overrides: `off`, `on`, or comma-separated `key=value` pairs with
    /// keys `size`, `line`, `ways` (a number or `full`), `policy` (lru, fifo, plru, random),
    /// `write` (back, through), `wb` (line, byte), `hit` (hit latency), `wbuf` (write-buffer
    /// entries), `seed`. Example: `size=32K,line=64,ways=4,policy=lru,write=back,wb=line`.
    pub fn apply_cache_overrides(&mut self, spec: &str) -> Result<(), ConfigError> {
        let c = &mut self.cache;
        let mut full_ways = false;
        let mut given = Vec::new();
        // (An empty spec is most likely an empty shell variable: it would run the default
        // cache without a word.)
        if spec.split(',').all(|s| s.trim().is_empty()) {
            return Err(error("--cache", "nothing given (key=value items, e.g. line=64,wb=byte, or off)".to_string()));
        }
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = match item {
                "off" => ("enabled", "false"),
                "on" => ("enabled", "true"),
                _ => item.split_once('=').ok_or_else(|| error("--cache", format!("'{item}' is not key=value")))?,
            };
            // The last of two values would win without a word.
            if given.contains(&key) {
                return Err(error(format!("cache.{key}"), "given twice".to_string()));
            }
            given.push(key);
            let bad = |what: &str| error(format!("cache.{key}"), format!("'{value}' is not {what}"));
            let number = || parse_size(value).map_err(|e| error(format!("cache.{key}"), e));
            // Ways, cycles and entries are counts, not sizes (no `4K` ways).
            let count = |what: &str| value.parse::<u32>().map_err(|_| bad(what));
            match key {
                "enabled" => {
                    c.enabled = match value {
                        "true" => true,
                        "false" => false,
                        _ => return Err(bad("true or false")),
                    }
                }
                "size" => c.size = number()?,
                "line" => c.line = number()?,
                "ways" if value == "full" => full_ways = true,
                "ways" => c.ways = count("a number of ways (1, 2, 4, …, or full)")?,
                "policy" => {
                    c.policy = match value {
                        "lru" => Policy::Lru,
                        "fifo" => Policy::Fifo,
                        "plru" => Policy::Plru,
                        "random" => Policy::Random,
                        _ => return Err(bad("a policy (lru, fifo, plru, random)")),
                    }
                }
                "write" => {
                    c.write = match value {
                        "back" => WritePolicy::Back,
                        "through" => WritePolicy::Through,
                        _ => return Err(bad("a write policy (back, through)")),
                    }
                }
                "wb" => {
                    c.writeback = match value {
                        "line" => WriteBack::Line,
                        "byte" | "dirty-bytes" => WriteBack::DirtyBytes,
                        _ => return Err(bad("a write-back granularity (line, byte)")),
                    }
                }
                "hit" => c.hit_latency = count("a number of cycles")?,
                "wbuf" => c.write_buffer = count("a number of entries")?,
                "seed" => c.seed = value.parse().map_err(|_| bad("a number"))?,
                _ => {
                    return Err(error(
                        "--cache",
                        format!(
                        "unknown key '{key}' (size, line, ways, policy, write, wb, hit, wbuf, seed, enabled, on, off)"
                    ),
                    ))
                }
            }
        }
        if full_ways && c.line > 0 {
            c.ways = c.size / c.line;
        }
        Ok(())
    }
}

/// The dotted name of the TOML key at byte `offset`, for error messages.
fn field_at(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    // A table header (`[name]`, `[[name]]`): the error is about the table itself.
    let header = |line: &str| {
        let name = line.strip_prefix('[')?.trim_start_matches('[');
        Some(name.split(']').next().unwrap_or("").trim().to_string())
    };
    if let Some(table) = header(line) {
        return table;
    }
    let key = line.split('=').next().unwrap_or("").trim();
    match before[..line_start].lines().rev().find_map(|l| header(l.trim())) {
        Some(table) => format!("{table}.{key}"),
        None => key.to_string(),
    }
}

/// Parses a byte size: a number (decimal or `0x` hex) with an optional `K`/`M`/`G` suffix
/// (powers of 1024; `KiB`, `MiB`, `GiB` and a trailing `B` are accepted too).
pub fn parse_size(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let split = |s: &str, is_digit: fn(&char) -> bool| s.chars().take_while(is_digit).count();
    let (value, suffix) = match lower.strip_prefix("0x") {
        Some(hex) => {
            let end = split(hex, char::is_ascii_hexdigit);
            (u64::from_str_radix(&hex[..end], 16), &hex[end..])
        }
        None => {
            let end = split(&lower, char::is_ascii_digit);
            (lower[..end].parse::<u64>(), &lower[end..])
        }
    };
    let value = value.map_err(|_| format!("'{t}' is not a size (examples: 65536, 0x10000, 64K, 32M)"))?;
    let scale: u64 = match suffix {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("'{t}' has an unknown unit '{suffix}' (use K, M or G)")),
    };
    value
        .checked_mul(scale)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("'{t}' does not fit the 32-bit address space"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("32KiB"), Ok(32 << 10));
        assert_eq!(parse_size("0x1000"), Ok(4096));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("4G").unwrap_err().contains("does not fit"));
        assert!(parse_size("12Q").unwrap_err().contains("unknown unit"));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
    }

    #[test]
    fn defaults_are_valid_and_round_trip_through_toml() {
        let c = MachineConfig::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(MachineConfig::from_toml(&c.to_toml()), Ok(c.clone()));
        assert!(c.to_toml().contains("dram_base = 0x80000000\n"), "{}", c.to_toml());
    }

    #[test]
    fn every_preset_is_valid_and_round_trips_through_toml() {
        for (name, _) in PRESETS {
            let c = MachineConfig::preset(name).unwrap().unwrap();
            assert_eq!(c.validate(), Ok(()), "{name}");
            assert_eq!(MachineConfig::from_toml(&c.to_toml()), Ok(c.clone()), "{name}");
        }
        let virt = MachineConfig::preset("virt").unwrap().unwrap();
        assert!(
            virt.to_toml().contains("[[memory.regions]]\nname = \"flash\"\nbase = 0x20000000\n"),
            "{}",
            virt.to_toml()
        );
    }

    #[test]
    fn cache_overrides_are_strict() {
        let mut c = MachineConfig::default();
        let e = c.apply_cache_overrides("enabled=yes").unwrap_err();
        assert_eq!((e.field.as_str(), e.reason.as_str()), ("cache.enabled", "'yes' is not true or false"));
        assert!(c.cache.enabled, "the refused value changed nothing");
        c.apply_cache_overrides("enabled=false").unwrap();
        assert!(!c.cache.enabled);
        // A key given twice is refused, not decided by the last (issue 13).
        let e = c.apply_cache_overrides("size=16K,line=32,size=32K").unwrap_err();
        assert_eq!((e.field.as_str(), e.reason.as_str()), ("cache.size", "given twice"));
    }

    #[test]
    fn devices_are_checked() {
        let c = MachineConfig::from_toml("[devices.clint]\ntimebase_hz = 0\n").unwrap();
        assert_eq!(c.validate().unwrap_err().field, "devices.clint.timebase_hz");
        let c = MachineConfig::from_toml("[devices.uart]\nbase = 0x80000000\n").unwrap();
        assert_eq!(c.validate().unwrap_err().field, "devices.uart.base", "overlaps DRAM");
    }

    #[test]
    fn toml_files_override_only_what_they_name() {
        let c = MachineConfig::from_toml("[cache]\nline = 64\nwriteback = \"dirty-bytes\"\n[axi]\nread_latency = 50\n")
            .unwrap();
        assert_eq!((c.cache.line, c.cache.writeback, c.axi.read_latency), (64, WriteBack::DirtyBytes, 50));
        assert_eq!(c.cache.size, CacheConfig::default().size);
    }

    #[test]
    fn toml_errors_name_the_field() {
        let e = MachineConfig::from_toml("[cache]\npolicy = \"mru\"\n").unwrap_err();
        assert_eq!(e.field, "cache.policy");
        // The line is said (issue 13: a string left open made the next line's text a key,
        // with nothing to find it by).
        let e = MachineConfig::from_toml("[axi]\nread_latency = \"a\nb\"\n").unwrap_err();
        assert_eq!(e.to_string(), "invalid configuration: axi.b\": key with no value, expected `=` (line 3)");
        let e = MachineConfig::from_toml("[cache]\nlines = 64\n").unwrap_err();
        assert!(e.reason.contains("unknown field"), "{e}");
        let e = MachineConfig::from_toml("[memory]\nuncached_alias = 0x80000000\n").unwrap().validate().unwrap_err();
        assert_eq!(e.field, "memory.uncached_alias");
        // An unknown table: its name, on one line (it once took the next line along).
        let e = MachineConfig::from_toml("[mxpp]\nx = 1\n").unwrap_err();
        assert_eq!(e.field, "mxpp");
        let e = MachineConfig::from_toml("[[memory.regions]]\nbase = 0\nsize = 4096\nfoo = 3\n").unwrap_err();
        assert_eq!(e.field, "memory.regions.foo");
    }

    #[test]
    fn lists_must_have_their_exact_length() {
        // A fourth value used to be dropped silently.
        let e = MachineConfig::from_toml("[mxp]\nfxp_frac_bits = [1, 2, 3, 4]\n").unwrap_err();
        assert_eq!(e.field, "mxp.fxp_frac_bits");
        assert!(e.reason.contains("invalid length 4, expected a list of 3 values"), "{e}");
        assert!(MachineConfig::from_toml("[mxp]\ncustom_lanes = [1]\n").is_err());
        let c = MachineConfig::from_toml("[mxp]\nfxp_frac_bits = [1, 2, 3]\n").unwrap();
        assert_eq!(c.mxp.fxp_frac_bits, [1, 2, 3]);
    }

    #[test]
    fn cache_overrides() {
        let mut c = MachineConfig::default();
        c.apply_cache_overrides("size=32K,line=64,ways=4,policy=plru,write=through,wb=byte,hit=2,wbuf=8,seed=9")
            .unwrap();
        let k = &c.cache;
        assert_eq!((k.size, k.line, k.ways, k.policy), (32 << 10, 64, 4, Policy::Plru));
        assert_eq!(
            (k.write, k.writeback, k.hit_latency, k.write_buffer, k.seed),
            (WritePolicy::Through, WriteBack::DirtyBytes, 2, 8, 9)
        );
        c.apply_cache_overrides("ways=full").unwrap();
        assert_eq!(c.cache.ways, 512);
        c.apply_cache_overrides("off").unwrap();
        assert!(!c.cache.enabled);
        assert_eq!(c.apply_cache_overrides("policy=mru").unwrap_err().field, "cache.policy");
        assert_eq!(c.apply_cache_overrides("colour=red").unwrap_err().field, "--cache");
        assert_eq!(c.apply_cache_overrides("line").unwrap_err().field, "--cache");
        for empty in ["", " ", ",", " , "] {
            assert_eq!(c.apply_cache_overrides(empty).unwrap_err().field, "--cache", "{empty:?}");
        }
        // Counts are not sizes.
        for (item, reason) in [
            ("ways=abc", "'abc' is not a number of ways (1, 2, 4, …, or full)"),
            ("ways=4K", "'4K' is not a number of ways (1, 2, 4, …, or full)"),
            ("hit=1K", "'1K' is not a number of cycles"),
            ("wbuf=-1", "'-1' is not a number of entries"),
        ] {
            assert_eq!(c.apply_cache_overrides(item).unwrap_err().reason, reason, "{item}");
        }
        let mut c = MachineConfig::default();
        c.apply_cache_overrides("line=48").unwrap();
        assert_eq!(c.validate().unwrap_err().field, "cache.line");
    }
}

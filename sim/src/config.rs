//! The machine's configuration: what is built, before anything runs.

use std::fmt;

/// The simulated machine. Defaults match what the firmware in `firmware/` is linked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineConfig {
    /// Where DRAM starts (QEMU `virt`, Spike and riscv-tests all expect `0x8000_0000`).
    pub dram_base: u32,
    /// DRAM size in bytes.
    pub dram_size: u32,
    /// The CPU clock: converts cycles to the seconds the firmware sees through semihosting
    /// (`SYS_CLOCK`, `SYS_TIME`, `SYS_TICKFREQ`).
    pub clock_hz: u32,
}

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
            dram_base: 0x8000_0000,
            dram_size: 64 << 20,
            clock_hz: 100_000_000,
        }
    }
}

/// An invalid configuration value, naming the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration: {}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ConfigError {}

impl MachineConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |field, reason: String| Err(ConfigError { field, reason });
        if self.dram_size == 0 || self.dram_size % 4096 != 0 {
            return err(
                "dram_size",
                format!("{} is not a positive multiple of 4 KiB", self.dram_size),
            );
        }
        if self.dram_base % 4096 != 0 {
            return err(
                "dram_base",
                format!("{:#x} is not 4 KiB aligned", self.dram_base),
            );
        }
        if self.dram_base as u64 + self.dram_size as u64 > 1 << 32 {
            return err(
                "dram_size",
                format!(
                    "{:#x} bytes at {:#x} run past the end of the 32-bit address space",
                    self.dram_size, self.dram_base
                ),
            );
        }
        if self.clock_hz == 0 {
            return err("clock_hz", "must be positive".into());
        }
        Ok(())
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
    let value =
        value.map_err(|_| format!("'{t}' is not a size (examples: 65536, 0x10000, 64K, 32M)"))?;
    let scale: u64 = match suffix {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => {
            return Err(format!(
                "'{t}' has an unknown unit '{suffix}' (use K, M or G)"
            ))
        }
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
    fn validation_names_the_field() {
        let bad = MachineConfig {
            dram_size: 1000,
            ..Default::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "dram_size");
        let past_end = MachineConfig {
            dram_size: 0x8000_1000,
            ..Default::default()
        };
        assert!(past_end
            .validate()
            .unwrap_err()
            .reason
            .contains("past the end"));
        assert!(MachineConfig::default().validate().is_ok());
    }
}

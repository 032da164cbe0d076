//! `firmware/include/mxpsim.h` is hand-kept: every address and register it names must be the
//! simulator's default, or firmware and simulator disagree about the machine.

use mxpsim_models::memory_system::{sysctl, MemoryMap};
use mxpsim_models::mxp::config::MxpConfig;
use std::collections::BTreeMap;

/// The `#define NAME 0x...u` constants of the header.
fn defines() -> BTreeMap<String, u32> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/firmware/include/mxpsim.h");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next()? == "#define").then_some(())?;
            let name = words.next()?;
            let value = words.next()?.trim_end_matches('u');
            let number = match value.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => value.parse().ok()?,
            };
            Some((name.to_string(), number))
        })
        .collect()
}

#[test]
fn firmware_header_matches_the_simulator() {
    let d = defines();
    let map = MemoryMap::default();
    let mxp = MxpConfig::default();
    let expected = [
        ("MXPSIM_DRAM_BASE", map.dram_base),
        ("MXPSIM_DRAM_SIZE", map.dram_size),
        ("MXPSIM_UNCACHED_ALIAS", map.uncached_alias),
        ("MXPSIM_SYSCTL_BASE", map.sysctl),
        ("MXPSIM_MXP_PORT", mxp.port),
        ("MXPSIM_SCRATCHPAD", mxp.scratchpad),
        ("MXPSIM_SYSCTL_MXP_LANES", sysctl::MXP_LANES),
        ("MXPSIM_SYSCTL_MXP_SCRATCHPAD_SIZE", sysctl::MXP_SCRATCHPAD_SIZE),
        ("MXPSIM_SYSCTL_MXP_FXP_FRAC_BITS", sysctl::MXP_FXP_FRAC_BITS),
        ("MXPSIM_SYSCTL_MXP_MAX_MASKED_VL", sysctl::MXP_MAX_MASKED_VL),
        ("MXPSIM_SYSCTL_MXP_CUSTOM_LANES", sysctl::MXP_CUSTOM_LANES),
        ("MXPSIM_SYSCTL_CLOCK_HZ", sysctl::CLOCK_HZ),
        ("MXPSIM_SYSCTL_CACHE_CTRL", sysctl::CACHE_CTRL),
        ("MXPSIM_SYSCTL_CACHE_LINE", sysctl::CACHE_LINE),
        ("MXPSIM_SYSCTL_CACHE_SIZE", sysctl::CACHE_SIZE),
        ("MXPSIM_CACHE_CLEAN_ALL", sysctl::CACHE_CLEAN_ALL),
        ("MXPSIM_CACHE_FLUSH_ALL", sysctl::CACHE_FLUSH_ALL),
        ("MXPSIM_CACHE_INVAL_ALL", sysctl::CACHE_INVAL_ALL),
    ];
    for (name, value) in expected {
        assert_eq!(d.get(name), Some(&value), "{name} in mxpsim.h");
    }
    assert_eq!(d.len(), expected.len(), "mxpsim.h defines constants this test does not check: {d:?}");
}

//! The memory map: where DRAM, its uncached alias, the SoC's blocks, more memory regions and
//! the devices are ([`MemoryMap`], the `[memory]` table of a machine file), as one table
//! ([`layout`]) that the configuration check and the address decoding both read.

use crate::devices::sysctl;
use crate::devices::{clint, uart, DevicesConfig};
use crate::invalid::InvalidField;
use crate::mxp::config::{MxpConfig, PORT_SIZE};
use mxpsim_detector::event::Range;
use serde::{Deserialize, Serialize};

/// Where things are. Regions must not overlap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryMap {
    pub dram_base: u32,
    pub dram_size: u32,
    /// Base of the uncached alias of DRAM (same size as DRAM).
    pub uncached_alias: u32,
    /// Base of the system-control registers.
    pub sysctl: u32,
    /// Memory besides DRAM (`[[memory.regions]]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<Region>,
}

/// A memory region besides DRAM: a board's flash, an SRAM, … ELF segments may be loaded into
/// it; the CPU fetches from it; ROM refuses stores (an access fault) and DMA writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// What the region is, for messages (`flash`, `sram`, …).
    pub name: String,
    pub base: u32,
    pub size: u32,
    #[serde(default)]
    pub kind: RegionKind,
    /// Through the data cache (true), or not: then the CPU's accesses are uncached, as
    /// through DRAM's uncached alias.
    #[serde(default = "cached_by_default")]
    pub cached: bool,
}

fn cached_by_default() -> bool {
    true
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegionKind {
    #[default]
    Ram,
    Rom,
}

impl Default for MemoryMap {
    fn default() -> Self {
        MemoryMap {
            dram_base: 0x8000_0000,
            dram_size: 64 << 20,
            uncached_alias: 0xc000_0000,
            sysctl: 0x4000_0000,
            regions: Vec::new(),
        }
    }
}

impl MemoryMap {
    /// The memory: DRAM, then the other regions.
    pub fn ranges(&self) -> Vec<Range> {
        let regions = self.regions.iter().map(|r| Range::new(r.base, r.size));
        std::iter::once(Range::new(self.dram_base, self.dram_size)).chain(regions).collect()
    }

    /// True if `[addr, addr + len)` lies in memory: DRAM or one other region.
    pub fn is_memory(&self, addr: u32, len: u32) -> bool {
        let inside = |base, size| offset_in(base, size, addr, len).is_some();
        inside(self.dram_base, self.dram_size) || self.regions.iter().any(|r| inside(r.base, r.size))
    }

    /// The DRAM address an uncached-alias address names; any other address unchanged.
    pub fn physical(&self, addr: u32) -> u32 {
        match addr.wrapping_sub(self.uncached_alias) {
            off if off < self.dram_size => self.dram_base + off,
            _ => addr,
        }
    }

    /// Checks the map, with the accelerator's and the devices' regions, which must not
    /// overlap it either.
    pub fn validate(&self, mxp: &MxpConfig, devices: &DevicesConfig) -> Result<(), InvalidField> {
        let err = InvalidField::err;
        if self.dram_size == 0 || !self.dram_size.is_multiple_of(4096) {
            return err("dram_size", format!("{:#x} is not a positive multiple of 4 KiB", self.dram_size));
        }
        if let Some(r) = self.regions.iter().find(|r| r.size == 0 || r.size % 4096 != 0) {
            return err("regions", format!("`{}`: size {:#x} is not a positive multiple of 4 KiB", r.name, r.size));
        }
        let entries = layout(self, mxp, devices);
        for (i, e) in entries.iter().enumerate() {
            if e.base % 4096 != 0 && !e.field.starts_with("mxp.") {
                return err(e.field, format!("{:#x} is not 4 KiB aligned", e.base));
            }
            if e.base as u64 + e.size as u64 > 1 << 32 {
                return err(
                    e.field,
                    format!("{:#x} bytes at {:#x} run past the end of the address space", e.size, e.base),
                );
            }
            if let Some(other) =
                entries[..i].iter().find(|o| Range::new(e.base, e.size).overlaps(Range::new(o.base, o.size)))
            {
                let (base, size) = (e.base, e.size);
                return err(e.field, format!("the region at {base:#x} ({size:#x} bytes) overlaps {}", other.field));
            }
        }
        Ok(())
    }
}

/// What answers in a part of the address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Dram,
    UncachedAlias,
    Sysctl,
    MxpPort,
    Scratchpad,
    /// `MemoryMap::regions[i]`.
    Region(usize),
    Clint,
    Uart,
}

impl Part {
    /// What it is, in words (a memory region's own name is in the map).
    pub fn describe(self, map: &MemoryMap) -> String {
        match self {
            Part::Dram => "DRAM".into(),
            Part::UncachedAlias => "the uncached alias of DRAM".into(),
            Part::Sysctl => "the system-control registers".into(),
            Part::MxpPort => "the MXP instruction port".into(),
            Part::Scratchpad => "the MXP scratchpad".into(),
            Part::Region(i) => {
                let r = &map.regions[i];
                let kind = match r.kind {
                    RegionKind::Ram => "RAM",
                    RegionKind::Rom => "ROM",
                };
                format!("the {kind} region `{}`", r.name)
            }
            Part::Clint => "the CLINT".into(),
            Part::Uart => "the UART".into(),
        }
    }
}

/// One part of the address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapEntry {
    /// The configuration field that places it (for messages).
    pub field: &'static str,
    pub base: u32,
    pub size: u32,
    pub part: Part,
}

impl MapEntry {
    /// The offset of `[addr, addr + len)` in this part, if it lies entirely inside.
    #[inline(always)]
    pub fn offset(&self, addr: u32, len: u32) -> Option<u32> {
        offset_in(self.base, self.size, addr, len)
    }
}

/// The offset of `[addr, addr + len)` in the part `[base, base + size)`, if it lies entirely
/// inside (no arithmetic that could overflow).
#[inline(always)]
pub(crate) fn offset_in(base: u32, size: u32, addr: u32, len: u32) -> Option<u32> {
    let off = addr.wrapping_sub(base);
    (off < size && size - off >= len).then_some(off)
}

/// The machine's memory map: the one table both the configuration check (no overlaps) and
/// the memory system's address decoding read. DRAM comes first: decoding looks there first.
pub fn layout(map: &MemoryMap, mxp: &MxpConfig, devices: &DevicesConfig) -> Vec<MapEntry> {
    let entry = |field, base, size, part| MapEntry { field, base, size, part };
    let mut entries = vec![
        entry("dram_base", map.dram_base, map.dram_size, Part::Dram),
        entry("uncached_alias", map.uncached_alias, map.dram_size, Part::UncachedAlias),
        entry("mxp.scratchpad", mxp.scratchpad, mxp.scratchpad_size, Part::Scratchpad),
        entry("mxp.port", mxp.port, PORT_SIZE, Part::MxpPort),
        entry("sysctl", map.sysctl, sysctl::SIZE, Part::Sysctl),
    ];
    entries.extend(map.regions.iter().enumerate().map(|(i, r)| entry("regions", r.base, r.size, Part::Region(i))));
    if let Some(c) = &devices.clint {
        entries.push(entry("devices.clint.base", c.base, clint::SIZE, Part::Clint));
    }
    if let Some(u) = &devices.uart {
        entries.push(entry("devices.uart.base", u.base, uart::SIZE, Part::Uart));
    }
    entries
}

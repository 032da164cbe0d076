//! Whether a firmware image fits a machine's memory, and when it does not, the setting that
//! would make it fit: found by trying each candidate on a copy of the configuration — it
//! must be a valid machine and hold the whole image — so that a message never names a fix
//! that fails (a DRAM too large for the address space, a region over a device).

use crate::config::MachineConfig;
use crate::elf::Image;
use mxpsim_models::memory_system::{MemoryMap, Region, RegionKind};
use std::fmt;

const MIB: u64 = 1 << 20;

/// A firmware image that does not fit the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideMemory {
    pub what: &'static str,
    pub addr: u32,
    pub size: u32,
    pub dram_base: u32,
    pub dram_size: u32,
    /// What would make it fit, or why nothing would.
    pub hint: String,
}

impl fmt::Display for OutsideMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {:#010x} ({} bytes) lies outside memory (DRAM {:#010x}..{:#010x}); {}",
            self.what,
            self.addr,
            self.size,
            self.dram_base,
            self.dram_base as u64 + self.dram_size as u64,
            self.hint
        )
    }
}

/// Places `image` in `config`'s memory or says what lies outside it, with the hint: each
/// segment, then the entry point, then the stack's first word (picolibc's crt0 starts the
/// stack at `__stack`, growing down: if that word is not writable, every push faults, the
/// trap handler's too).
pub fn check(image: &Image, config: &MachineConfig) -> Result<(), OutsideMemory> {
    let needs = Needs::of(image);
    let map = &config.memory;
    let outside = |what, addr, size| OutsideMemory {
        what,
        addr,
        size,
        dram_base: map.dram_base,
        dram_size: map.dram_size,
        hint: needs.hint(config),
    };
    if let Some(s) = image.segments.iter().find(|s| !in_memory(map, span(s.addr, s.mem_size))) {
        return Err(outside("segment", s.addr, s.mem_size));
    }
    if !in_memory(map, span(image.entry, 2)) {
        return Err(outside("entry point", image.entry, 4));
    }
    match needs.stack {
        Some(first) if !writable(map, first) => Err(outside("the stack's top (`__stack`)", first, 4)),
        _ => Ok(()),
    }
}

/// What an image needs of memory: its segments, its entry point's first parcel, and its
/// stack's first word, each as `[start, end)` (a damaged size may run past 4 GiB).
struct Needs {
    segments: Vec<(u64, u64)>,
    entry: u32,
    stack: Option<u32>,
}

impl Needs {
    fn of(image: &Image) -> Needs {
        Needs {
            segments: image.segments.iter().map(|s| span(s.addr, s.mem_size)).collect(),
            entry: image.entry,
            stack: image.symbols.addr_of("__stack").map(|top| top.wrapping_sub(4)),
        }
    }

    /// The entry point lies in none of the segments: no memory makes it run (see
    /// [`Needs::hint`]).
    fn entry_lost(&self) -> bool {
        !self.segments.iter().any(|&(start, end)| (start..end).contains(&u64::from(self.entry)))
    }

    /// Every range a fix must hold: the segments, the entry point (unless it is lost), the
    /// stack's first word last.
    fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let entry = (!self.entry_lost()).then(|| span(self.entry, 2));
        self.segments.iter().copied().chain(entry).chain(self.stack.map(|s| span(s, 4)))
    }

    /// True if `map` holds what a fix must: the segments and the entry in memory, the stack
    /// in writable memory.
    fn held_by(&self, map: &MemoryMap) -> bool {
        let entry = (!self.entry_lost()).then(|| span(self.entry, 2));
        self.segments.iter().chain(&entry).all(|&range| in_memory(map, range))
            && self.stack.is_none_or(|first| writable(map, first))
    }

    /// What would make `config` hold the image, or why nothing would; and that its entry
    /// point lies in none of its segments (no memory makes that run), when it does not.
    pub fn hint(&self, config: &MachineConfig) -> String {
        const ENTRY_LOST: &str =
            "the entry point lies in none of the image's loadable segments (is the ELF header damaged?)";
        if self.segments.iter().any(|&(_, end)| end > 1 << 32) {
            return "a segment runs past the end of the address space (is a size in the file damaged?)".into();
        }
        if self.entry_lost() && self.held_by(&config.memory) {
            return ENTRY_LOST.into();
        }
        let hint = match self.fix(config) {
            Ok(fix) => fix.to_string(),
            Err(why) => format!(
                "no memory can be placed there on this machine ({why}): is the image linked for another machine?"
            ),
        };
        match self.entry_lost() {
            true => format!("{hint}; and {ENTRY_LOST}"),
            false => hint,
        }
    }

    /// The first setting, of those a user would try first, that makes `config` a valid
    /// machine holding the image; else why the last candidate is not a valid machine.
    fn fix(&self, config: &MachineConfig) -> Result<Fix, String> {
        let map = &config.memory;
        let (low, high) = self.ranges().fold((u64::MAX, 0), |(lo, hi), (start, end)| (lo.min(start), hi.max(end)));
        let mut candidates = Vec::new();
        // A larger DRAM, where everything lies above its base.
        if low >= u64::from(map.dram_base) {
            candidates.extend(u32::try_from((high - u64::from(map.dram_base)).div_ceil(MIB) * MIB).map(Fix::DramSize));
        }
        // DRAM moved to where the image is linked, grown if it must be.
        let base = low & !(MIB - 1);
        let size = u64::from(map.dram_size).max((high - base).div_ceil(MIB) * MIB);
        if let (Ok(base), Ok(size)) = (u32::try_from(base), u32::try_from(size)) {
            candidates.push(Fix::Dram { base, size });
        }
        // A preset with memory where the image is (code in flash, data in RAM).
        candidates.extend(crate::config::PRESETS.iter().skip(1).map(|&(name, _)| Fix::Preset(name)));
        // A region of RAM over what DRAM does not hold.
        let outside = self.ranges().filter(|&range| !in_memory(map, range));
        let (start, end) = outside.fold((u64::MAX, 0), |(lo, hi), (start, end)| (lo.min(start), hi.max(end)));
        let (start, end) = (start & !0xfff, end.div_ceil(0x1000) * 0x1000);
        if let (true, Ok(base), Ok(size)) = (start < end, u32::try_from(start), u32::try_from(end.wrapping_sub(start)))
        {
            candidates.push(Fix::Region { base, size });
        }
        let mut why = "nothing in the memory map can hold it".to_string();
        for fix in candidates {
            match fix.apply(config).map(|machine| (machine.validate(), machine)) {
                Some((Ok(()), machine)) if self.held_by(&machine.memory) => return Ok(fix),
                Some((Err(e), _)) => why = e.to_string(),
                _ => {}
            }
        }
        Err(why)
    }
}

/// A setting that places memory where an image needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fix {
    /// `--dram-size`, in bytes (a whole number of MiB).
    DramSize(u32),
    /// A machine file's `dram_base` and `dram_size`.
    Dram { base: u32, size: u32 },
    /// `--machine NAME`.
    Preset(&'static str),
    /// A machine file's `[[memory.regions]]` entry of RAM.
    Region { base: u32, size: u32 },
}

impl Fix {
    /// `config` with the setting made (`None`: a preset that does not load, or is `config`).
    fn apply(&self, config: &MachineConfig) -> Option<MachineConfig> {
        let mut machine = config.clone();
        match *self {
            Fix::DramSize(size) => machine.memory.dram_size = size,
            Fix::Dram { base, size } => (machine.memory.dram_base, machine.memory.dram_size) = (base, size),
            Fix::Preset(name) => return MachineConfig::preset(name)?.ok().filter(|preset| preset != config),
            Fix::Region { base, size } => {
                let region = Region { name: "ram".into(), base, size, kind: RegionKind::Ram, cached: true };
                machine.memory.regions.push(region);
            }
        }
        Some(machine)
    }
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EDIT: &str = "(`mxpsim config` prints one to edit)";
        match *self {
            Fix::DramSize(size) => {
                write!(f, "--dram-size {}M would hold the image and its stack", u64::from(size) / MIB)
            }
            Fix::Dram { base, size } => write!(
                f,
                "the image is linked for memory at {base:#010x}: a --machine file with `dram_base = {base:#x}` and \
                 `dram_size = {size:#x}` in its [memory] table places DRAM there {EDIT}"
            ),
            Fix::Preset(name) => write!(f, "the `{name}` machine has memory there: --machine {name}"),
            Fix::Region { base, size } => write!(
                f,
                "a --machine file with a [[memory.regions]] entry of RAM, {size:#x} bytes at {base:#010x}, places \
                 memory there {EDIT}"
            ),
        }
    }
}

/// `[addr, addr + len)`, past 4 GiB if it runs there.
fn span(addr: u32, len: u32) -> (u64, u64) {
    (u64::from(addr), u64::from(addr) + u64::from(len))
}

/// True if `[start, end)` lies in `map`'s memory.
fn in_memory(map: &MemoryMap, (start, end): (u64, u64)) -> bool {
    end <= 1 << 32 && u32::try_from(end - start).is_ok_and(|len| map.is_memory(start as u32, len))
}

/// True if the word at `addr` lies in writable memory: DRAM or a region of RAM.
fn writable(map: &MemoryMap, addr: u32) -> bool {
    let in_ram = |base: u32, size: u32| addr.wrapping_sub(base) < size && size - addr.wrapping_sub(base) >= 4;
    in_ram(map.dram_base, map.dram_size)
        || map.regions.iter().any(|r| r.kind == RegionKind::Ram && in_ram(r.base, r.size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::Segment;
    use crate::symbols::{Symbol, Symbols};

    /// An image of `segments` (address, size), entered at `entry`, its stack's top at `stack`.
    fn image(segments: &[(u32, u32)], entry: u32, stack: Option<u32>) -> Image {
        let symbols = stack.map(|addr| Symbol { name: "__stack".into(), addr, size: 0 }).into_iter().collect();
        Image {
            entry,
            segments: segments.iter().map(|&(addr, mem_size)| Segment { addr, data: Vec::new(), mem_size }).collect(),
            symbols: Symbols::new(symbols),
            file: std::sync::Arc::from(&[][..]),
        }
    }

    /// Every fix named holds the image in a valid machine: images linked at addresses all over
    /// the default machine's map (a message once named a DRAM too large for the address
    /// space, DRAM where it already was, a region over the accelerator's port).
    #[test]
    fn every_fix_named_makes_a_valid_machine_that_holds_the_image() {
        let config = MachineConfig::default();
        let mut named = 0;
        for &base in &[
            0x0000_1000,
            0x1000_0000,
            0x2000_0000,
            0x4000_0000,
            0x4001_0000,
            0x5000_0000,
            0x7fff_0000,
            0x83ff_f000,
            0x9000_0000,
            0xbff0_0000,
            0xc000_0000,
            0xfff0_0000,
        ] {
            for &(size, stack) in &[(0x4000, None), (0x4000, Some(0x8400_0000)), (0x0100_0000, Some(0x8800_0000))] {
                let needs = Needs::of(&image(&[(base, size)], base, stack));
                if needs.held_by(&config.memory) {
                    continue;
                }
                if let Ok(fix) = needs.fix(&config) {
                    let machine = fix.apply(&config).expect("a fix applies");
                    assert_eq!(machine.validate(), Ok(()), "{fix}");
                    assert!(needs.held_by(&machine.memory), "{base:#x}: {fix}");
                    named += 1;
                }
            }
        }
        assert!(named > 10, "most placements have a fix ({named})");
    }

    #[test]
    fn what_no_setting_fixes_is_said_as_such() {
        let config = MachineConfig::default();
        let entry_lost = Needs::of(&image(&[(0x8000_0000, 0x4000)], 0x9000_0000, Some(0x8400_0000)));
        assert_eq!(
            entry_lost.hint(&config),
            "the entry point lies in none of the image's loadable segments (is the ELF header damaged?)"
        );
        let wrapped = Needs::of(&image(&[(0xffff_ff00, 0x4000)], 0xffff_ff00, None));
        assert!(wrapped.hint(&config).starts_with("a segment runs past the end of the address space"));
        let on_the_port = Needs::of(&image(&[(0x4001_0000, 0x18)], 0x4001_0000, None));
        let hint = on_the_port.hint(&config);
        assert!(
            hint.starts_with("no memory can be placed there on this machine (") && hint.contains("mxp.port"),
            "{hint}"
        );
    }

    #[test]
    fn a_larger_dram_comes_first_then_dram_moved_then_a_preset() {
        let config = MachineConfig::default();
        let past_the_end = Needs::of(&image(&[(0x8000_0000, 0x4000), (0x83ff_f000, 0x4000)], 0x8000_0000, None));
        assert_eq!(past_the_end.fix(&config), Ok(Fix::DramSize(65 << 20)));
        let below = Needs::of(&image(&[(0x7000_0000, 0x4000)], 0x7000_0000, Some(0x7100_0000)));
        assert_eq!(below.fix(&config), Ok(Fix::Dram { base: 0x7000_0000, size: 64 << 20 }));
        let flash_and_ram = Needs::of(&image(&[(0x2000_0000, 0x4000), (0x8000_0000, 0x4000)], 0x2000_0000, None));
        assert_eq!(flash_and_ram.fix(&config), Ok(Fix::Preset("virt")));
    }
}

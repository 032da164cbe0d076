//! Naming addresses in the firmware's terms: code addresses as `function+offset`
//! (`file:line` when the ELF has DWARF line information, through `addr2line`), data
//! addresses by the global variable that holds them.

use crate::data_names::DataNames;
use crate::elf::Image;
use crate::symbols::{Described, Symbol, Symbols};
use gimli::{EndianArcSlice, RunTimeEndian};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// DWARF read from the ELF's bytes in memory, sharing them.
type Lines = addr2line::Context<EndianArcSlice<RunTimeEndian>>;

pub struct SourceMap {
    symbols: Symbols,
    /// DWARF line information, when the ELF has it.
    lines: Option<Lines>,
    /// The ELF file's bytes as they were read at the start, for its DWARF variables. (Never
    /// the file again: it may have changed since, or be gone — rebuilt during a long run.)
    elf: Option<Arc<[u8]>>,
    /// DWARF variables: read when a report first names data (a run without one pays nothing).
    data: OnceLock<DataNames>,
}

impl SourceMap {
    /// Names from `symbols` and, when given, the DWARF of the ELF file `elf` (its bytes).
    pub fn new(symbols: Symbols, elf: Option<Arc<[u8]>>) -> Self {
        let lines = elf.as_ref().and_then(read_lines);
        SourceMap { symbols, lines, elf, data: OnceLock::new() }
    }

    /// Names from a loaded image: its symbols and its file's DWARF.
    pub fn of(image: &Image) -> Self {
        SourceMap::new(image.symbols.clone(), Some(image.file.clone()))
    }

    fn data(&self) -> &DataNames {
        self.data.get_or_init(|| self.elf.as_deref().map_or_else(DataNames::default, DataNames::load))
    }

    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// `file:line` of a code address, if known; for inlined code, followed by where it was
    /// inlined, outwards: `vbx.h:242 inlined at app.c:143` (the firmware's own line last).
    pub fn line_of(&self, pc: u32) -> Option<String> {
        let loader = self.lines.as_ref()?;
        let mut lines = Vec::new();
        if let Ok(mut frames) = loader.find_frames(pc as u64).skip_all_loads() {
            while let Ok(Some(frame)) = frames.next() {
                lines.extend(frame.location.as_ref().and_then(file_line));
            }
        }
        lines.dedup(); // A call inlined on its own line reads "f.c:1 inlined at f.c:1" otherwise.
        if lines.is_empty() {
            lines.extend(file_line(&loader.find_location(pc as u64).ok()??));
        }
        (!lines.is_empty()).then(|| lines.join(" inlined at "))
    }

    /// The source frames of a code address, innermost first: the inlined functions' lines,
    /// then the function the code belongs to (one frame when nothing is inlined there, or
    /// the ELF has no DWARF).
    pub fn frames(&self, pc: u32) -> Vec<SourceFrame> {
        let mut frames = Vec::new();
        if let Some(loader) = &self.lines {
            if let Ok(mut iter) = loader.find_frames(pc as u64).skip_all_loads() {
                while let Ok(Some(frame)) = iter.next() {
                    let function = frame.function.as_ref().and_then(|f| f.raw_name().ok()).map(|n| demangle(&n));
                    let (file, line) = frame
                        .location
                        .as_ref()
                        .map_or((None, None), |l| (l.file.map(|f| f.trim_start_matches("./").to_string()), l.line));
                    frames.push(SourceFrame { pc, function, file, line, inlined: false });
                }
            }
        }
        if frames.is_empty() {
            frames.push(SourceFrame { pc, function: None, file: None, line: None, inlined: false });
        }
        let last = frames.len() - 1;
        for (i, frame) in frames.iter_mut().enumerate() {
            frame.inlined = i < last;
            if frame.function.is_none() && i == last {
                frame.function = self.symbols.containing(pc).map(|s| demangle(&s.name));
            }
        }
        frames
    }

    /// A code address as `0x80000124 <main+0x10> (app.c:57)`.
    pub fn code(&self, pc: u32) -> Code<'_> {
        Code { at: self.symbols.describe(pc), line: self.line_of(pc) }
    }

    /// The global variable holding `addr`, as (name, address, size): from DWARF, else the
    /// symbol with a size that covers it (a size-0 label such as `__global_pointer$` inside
    /// an array names nothing).
    pub fn global(&self, addr: u32) -> Option<(&str, u32, u32)> {
        match self.data().variable(addr) {
            Some(v) => Some((v.name.as_str(), v.addr, v.size)),
            None => self.symbols.covering(addr).map(|s: &Symbol| (s.name.as_str(), s.addr, s.size)),
        }
    }

    /// The local variable of the function running `pc` holding `[frame + offset, +len)`
    /// (`frame`: the function's frame address), with its access path, from DWARF.
    pub fn data_local(&self, pc: u32, offset: i64, len: u32) -> Option<String> {
        self.data().local(pc, offset, len)
    }

    /// The function `pc` belongs to (not an inlined callee), from DWARF, else the symbol
    /// table.
    pub fn function_name(&self, pc: u32) -> Option<&str> {
        self.data().function_name(pc).or_else(|| self.symbols.containing(pc).map(|s| s.name.as_str()))
    }

    /// The access path of `[addr, addr + len)` within its DWARF variable: `desc.len`,
    /// `frame_buf[12..16]`, or the variable's name when the bytes span several fields.
    pub fn data_path(&self, addr: u32, len: u32) -> Option<String> {
        self.data().path(addr, len)
    }
}

/// One frame of a source-level stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFrame {
    pub pc: u32,
    pub function: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Inlined into the next frame (the same instruction, an outer function's line).
    pub inlined: bool,
}

impl SourceFrame {
    /// `file:line`, when known.
    pub fn location(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        Some(match self.line {
            Some(line) => format!("{file}:{line}"),
            None => file.clone(),
        })
    }
}

fn file_line(loc: &addr2line::Location) -> Option<String> {
    let file = loc.file?.trim_start_matches("./");
    Some(match loc.line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_string(),
    })
}

pub struct Code<'a> {
    at: Described<'a>,
    line: Option<String>,
}

impl fmt::Display for Code<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.at)?;
        if let Some(line) = &self.line {
            write!(f, " ({line})")?;
        }
        Ok(())
    }
}

/// A function's name as the source spells it: a C++ linkage name demangled to the function
/// and its template arguments (`vbw_mtx_2Dfir<signed char>`, as DWARF names inlined
/// functions; overloads differ in their file and line), anything else as it is.
pub fn demangle(name: &str) -> String {
    let options = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    match name
        .starts_with("_Z")
        .then(|| cpp_demangle::Symbol::new(name).ok()?.demangle_with_options(&options).ok())
        .flatten()
    {
        Some(plain) => plain,
        None => name.to_string(),
    }
}

/// The line tables of the ELF file `bytes`, if it is one; addresses without DWARF find
/// nothing in them.
fn read_lines(bytes: &Arc<[u8]>) -> Option<Lines> {
    let dwarf = crate::dwarf::load(bytes, |range, endian| EndianArcSlice::new(bytes.clone(), endian).range(range))?;
    Lines::from_dwarf(dwarf).ok()
}

#[cfg(test)]
mod tests {
    use super::{demangle, SourceMap};

    /// The names come from the bytes read at the start: the file rebuilt or removed during
    /// the run changes nothing (its line tables were mapped from the file: a report then
    /// ended in SIGBUS, or lost its source lines).
    #[test]
    fn names_come_from_the_bytes_read_not_from_the_file_now() {
        let original = concat!(env!("CARGO_MANIFEST_DIR"), "/../firmware/bin/race-tests/wb_dma_r_pending_store.elf");
        let copy = std::env::temp_dir().join(format!("mxpsim-source-map-{}.elf", std::process::id()));
        std::fs::copy(original, &copy).unwrap();
        let image = crate::elf::load(&copy).unwrap();
        std::fs::write(&copy, b"").unwrap();
        let source = SourceMap::of(&image);
        let main = image.symbols.addr_of("main").unwrap();
        let line = source.line_of(main).expect("main has a source line");
        assert!(line.contains(".c:"), "{line}");
        assert_eq!(source.function_name(main), Some("main"));
        std::fs::remove_file(&copy).unwrap();
    }

    #[test]
    fn cpp_names_are_demangled_to_function_and_template_arguments() {
        assert_eq!(demangle("_Z13vbw_mtx_2DfirIaEvPT_S1_Pliiii"), "vbw_mtx_2Dfir<signed char>");
        assert_eq!(demangle("_ZN3VBX6VectorIiE4sizeEv"), "VBX::Vector<int>::size");
        assert_eq!(demangle("main"), "main");
        assert_eq!(demangle("_Z_not_a_name"), "_Z_not_a_name");
    }
}

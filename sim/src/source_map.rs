//! Naming addresses in the firmware's terms: code addresses as `function+offset`
//! (`file:line` when the ELF has DWARF line information, through `addr2line`), data
//! addresses by the global variable that holds them.

use crate::data_names::DataNames;
use crate::symbols::{Described, Symbol, Symbols};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub struct SourceMap {
    symbols: Symbols,
    /// DWARF line information, when the ELF has it.
    lines: Option<addr2line::Loader>,
    /// The ELF, for its DWARF variables.
    elf: Option<PathBuf>,
    /// DWARF variables: read when a report first names data (a run without one pays nothing).
    data: OnceLock<DataNames>,
}

impl SourceMap {
    pub fn new(symbols: Symbols, elf: Option<&Path>) -> Self {
        let lines = elf.and_then(|path| addr2line::Loader::new(path).ok());
        SourceMap { symbols, lines, elf: elf.map(Path::to_path_buf), data: OnceLock::new() }
    }

    fn data(&self) -> &DataNames {
        self.data.get_or_init(|| {
            let bytes = self.elf.as_ref().and_then(|path| std::fs::read(path).ok());
            bytes.map_or_else(DataNames::default, |b| DataNames::load(&b))
        })
    }

    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// `file:line` of a code address, if known; for inlined code, followed by where it was
    /// inlined, outwards: `vbx.h:242 inlined at app.c:143` (the firmware's own line last).
    pub fn line_of(&self, pc: u32) -> Option<String> {
        let loader = self.lines.as_ref()?;
        let mut lines = Vec::new();
        if let Ok(mut frames) = loader.find_frames(pc as u64) {
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
            if let Ok(mut iter) = loader.find_frames(pc as u64) {
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

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn cpp_names_are_demangled_to_function_and_template_arguments() {
        assert_eq!(demangle("_Z13vbw_mtx_2DfirIaEvPT_S1_Pliiii"), "vbw_mtx_2Dfir<signed char>");
        assert_eq!(demangle("_ZN3VBX6VectorIiE4sizeEv"), "VBX::Vector<int>::size");
        assert_eq!(demangle("main"), "main");
        assert_eq!(demangle("_Z_not_a_name"), "_Z_not_a_name");
    }
}

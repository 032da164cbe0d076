//! Naming addresses in the firmware's terms: code addresses as `function+offset`
//! (`file:line` when the ELF has DWARF line information, through `addr2line`), data
//! addresses by the global variable that holds them.

use crate::symbols::{Described, Symbols};
use std::fmt;
use std::path::Path;

pub struct SourceMap {
    symbols: Symbols,
    /// DWARF line information, when the ELF has it.
    lines: Option<addr2line::Loader>,
}

impl SourceMap {
    pub fn new(symbols: Symbols, elf: Option<&Path>) -> Self {
        let lines = elf.and_then(|path| addr2line::Loader::new(path).ok());
        SourceMap { symbols, lines }
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

    /// A code address as `0x80000124 <main+0x10> (app.c:57)`.
    pub fn code(&self, pc: u32) -> Code<'_> {
        Code { at: self.symbols.describe(pc), line: self.line_of(pc) }
    }

    /// The global variable holding `addr`, as `scalar_out+0x4`.
    pub fn data(&self, addr: u32) -> Option<String> {
        let s = self.symbols.containing(addr).filter(|s| s.size > 0)?;
        Some(match addr - s.addr {
            0 => s.name.clone(),
            off => format!("{}+{off:#x}", s.name),
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

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

    /// `file:line` of a code address, if known.
    pub fn line_of(&self, pc: u32) -> Option<String> {
        let loc = self.lines.as_ref()?.find_location(pc as u64).ok()??;
        let file = loc.file?.trim_start_matches("./");
        Some(match loc.line {
            Some(line) => format!("{file}:{line}"),
            None => file.to_string(),
        })
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

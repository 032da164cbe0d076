//! The firmware's symbol table, for naming addresses in messages and finding well-known
//! symbols such as `tohost`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub addr: u32,
    pub size: u32,
}

/// Symbols sorted by address (then name, so equal addresses resolve deterministically).
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    sorted: Vec<Symbol>,
}

impl Symbols {
    pub fn new(mut symbols: Vec<Symbol>) -> Self {
        symbols.sort_by(|a, b| (a.addr, &a.name).cmp(&(b.addr, &b.name)));
        Symbols { sorted: symbols }
    }

    /// The address of the symbol called `name`.
    pub fn addr_of(&self, name: &str) -> Option<u32> {
        self.sorted.iter().find(|s| s.name == name).map(|s| s.addr)
    }

    /// The addresses of every symbol called `name` (a `static` function may have a copy per
    /// object file), in address order.
    pub fn addrs_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = u32> + 'a {
        self.sorted.iter().filter(move |s| s.name == name).map(|s| s.addr)
    }

    /// The symbol containing `addr`: the nearest one at or below it, if its size covers
    /// `addr` or it is a label without a size (as in hand-written assembly), as objdump
    /// resolves addresses.
    pub fn containing(&self, addr: u32) -> Option<&Symbol> {
        let end = self.sorted.partition_point(|s| s.addr <= addr);
        let nearest = self.sorted[..end].last()?;
        // Several symbols may share the address: prefer one whose size covers `addr`.
        let same_addr = self.sorted[..end].iter().rev().take_while(|s| s.addr == nearest.addr);
        let mut candidates = same_addr.clone().filter(|s| addr - s.addr < s.size);
        candidates.next().or_else(|| same_addr.clone().find(|s| s.size == 0))
    }

    /// The symbol whose (non-zero) size covers `addr`; of several, the smallest (the
    /// innermost), then the first by name.
    pub fn covering(&self, addr: u32) -> Option<&Symbol> {
        let end = self.sorted.partition_point(|s| s.addr <= addr);
        self.sorted[..end].iter().filter(|s| addr - s.addr < s.size).min_by_key(|s| s.size)
    }

    /// `addr` with its symbol, as `0x80000010 <main+0x4>`.
    pub fn describe(&self, addr: u32) -> Described<'_> {
        Described { addr, symbol: self.containing(addr) }
    }
}

pub struct Described<'a> {
    addr: u32,
    symbol: Option<&'a Symbol>,
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.addr)?;
        match self.symbol {
            Some(s) if s.addr == self.addr => write!(f, " <{}>", s.name),
            Some(s) => write!(f, " <{}+{:#x}>", s.name, self.addr - s.addr),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Symbols {
        let sym = |name: &str, addr, size| Symbol { name: name.into(), addr, size };
        Symbols::new(vec![
            sym("main", 0x100, 0x20),
            sym("_start", 0x0, 0x10),
            sym("label", 0x200, 0),
            sym("tohost", 0x300, 8),
        ])
    }

    #[test]
    fn names_addresses_inside_symbols() {
        let s = table();
        assert_eq!(s.describe(0x100).to_string(), "0x00000100 <main>");
        assert_eq!(s.describe(0x11c).to_string(), "0x0000011c <main+0x1c>");
        assert_eq!(s.describe(0x120).to_string(), "0x00000120");
        assert_eq!(s.describe(0x200).to_string(), "0x00000200 <label>");
        assert_eq!(s.describe(0x204).to_string(), "0x00000204 <label+0x4>");
        assert_eq!(s.describe(0x308).to_string(), "0x00000308");
        assert_eq!(s.addr_of("tohost"), Some(0x300));
        assert_eq!(s.addr_of("fromhost"), None);
        assert_eq!(s.covering(0x304).map(|s| s.name.as_str()), Some("tohost"));
        assert_eq!(s.covering(0x204), None, "a label covers nothing");
    }
}

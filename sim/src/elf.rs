//! Reading firmware ELF files with `goblin`: the loadable segments, the entry point and the
//! symbol table (kept for reports and the `tohost` convention).

use crate::exit_code::Failure;
use crate::symbols::{Symbol, Symbols};
use goblin::elf::header::{EM_RISCV, ET_EXEC};
use goblin::elf::program_header::PT_LOAD;
use goblin::elf::sym::{STT_FUNC, STT_NOTYPE, STT_OBJECT};
use goblin::elf::Elf;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// `e_flags` bits of RISC-V ELF files that this RV32IMAC hart cannot honour. (`EF_RISCV_RVC`,
/// 0x1, says the code has compressed instructions: the hart runs them.)
const EF_RISCV_FLOAT_ABI: u32 = 0x6;
const EF_RISCV_RVE: u32 = 0x8;

/// A bit of the file to place in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Physical (load) address: where the bytes go, as QEMU and riscv-tests load them.
    pub addr: u32,
    /// The bytes from the file; the rest of `mem_size` is zero (`.bss`).
    pub data: Vec<u8>,
    pub mem_size: u32,
}

/// A firmware image, ready to place in a machine.
#[derive(Clone, Debug)]
pub struct Image {
    pub entry: u32,
    pub segments: Vec<Segment>,
    pub symbols: Symbols,
    /// The file's bytes as read, for its debug information (never read from the path again:
    /// the file may change or go while the firmware runs).
    pub file: Arc<[u8]>,
}

impl Image {
    /// A CRC-32 of what the image puts in memory and where it starts (the entry, and each
    /// segment's address, size and bytes): files with one fingerprint run alike, whatever
    /// else (debug information, paths) they differ in. An event trace records its firmware's,
    /// so that `detect --elf` knows another file when it is given one.
    pub fn fingerprint(&self) -> u32 {
        let mut crc = crc32fast::Hasher::new();
        crc.update(&self.entry.to_le_bytes());
        for segment in &self.segments {
            crc.update(&segment.addr.to_le_bytes());
            crc.update(&segment.mem_size.to_le_bytes());
            crc.update(&(segment.data.len() as u64).to_le_bytes());
            crc.update(&segment.data);
        }
        crc.finalize()
    }
}

/// The largest firmware file read: 32-bit code and data with their debug information are
/// far smaller.
const ELF_LIMIT: u64 = 1 << 30;

/// The file name of the firmware at `path`, as runs show it (the timeline, a sweep's shards):
/// not the path as typed, so that what is shown does not depend on where the file is.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |name| name.to_string_lossy().into_owned())
}

/// Why a file cannot be run.
#[derive(Debug, PartialEq, Eq)]
pub enum ElfError {
    Unreadable(String),
    NotElf,
    Malformed(String),
    Elf64,
    BigEndian,
    WrongMachine(String),
    NotExecutable(u16),
    UnsupportedFlags(String),
    NoLoadableSegment,
}

impl ElfError {
    pub fn failure(&self) -> Failure {
        match self {
            ElfError::Unreadable(_) => Failure::Unreadable,
            ElfError::NotElf | ElfError::Malformed(_) => Failure::NotElf,
            ElfError::Elf64 => Failure::Elf64,
            ElfError::BigEndian => Failure::BigEndian,
            ElfError::WrongMachine(_) | ElfError::NotExecutable(_) | ElfError::UnsupportedFlags(_) => {
                Failure::WrongMachine
            }
            ElfError::NoLoadableSegment => Failure::NoLoadableSegment,
        }
    }
}

/// goblin's error as a sentence about the file: its own texts ("bad offset 84", "type is too
/// big (52) for 40") say what the parser tried, not what is wrong with the file.
fn explain_parse_error(e: goblin::error::Error, file_len: usize) -> String {
    use goblin::error::Error as Parse;
    use scroll::Error as Read;
    match e {
        Parse::Scroll(Read::TooBig { size, len }) => format!(
            "a {size}-byte header or table is read where {len} bytes are left: the file is cut short, or a header \
             gives a wrong offset or size"
        ),
        Parse::Scroll(Read::BadOffset(offset)) => {
            format!("a header points at offset {offset:#x}, beyond the file's {file_len} bytes: the file is cut short or damaged")
        }
        // (Names are the only text an ELF file holds.)
        Parse::Scroll(Read::BadInput { msg: "invalid utf8", .. }) => {
            "a name in a string table (of symbols or sections) is not UTF-8 text: the file is damaged".into()
        }
        Parse::Scroll(Read::BadInput { msg, .. }) => format!("a header field cannot be read: {msg}"),
        Parse::BufferTooShort(count, what) => {
            format!("the file is too short for its {what} ({count} of them): it is cut short or a header is damaged")
        }
        Parse::Malformed(what) => explain_malformed(&what),
        other => format!("it cannot be parsed: {other}"),
    }
}

/// A `goblin::error::Error::Malformed` text ("Section 9 size (…) + offset (…) is out of
/// bounds", "Symbol table offset (…) is beyond file boundary") as a sentence about the file:
/// the text itself says what the parser tried, in its own terms (and goblin's "Section N" is
/// the section's name offset, not its number).
fn explain_malformed(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let has = |key: &str| lower.contains(key);
    let outside = |part: &str| {
        format!("{part} lies outside the file, by its header's offset, size or count: the file is cut short or a header is damaged")
    };
    if has("symbol") {
        outside("the symbol table")
    } else if has("strtable") || has("string table") {
        outside("a string table")
    } else if lower.starts_with("section ") || has("section header") {
        outside("a section")
    } else if has("pt_dynamic") {
        outside("the dynamic segment")
    } else if has("dt_gnu_hash") {
        "its symbol hash table (DT_GNU_HASH) is inconsistent".into()
    } else if has("notes") {
        "a note section has an alignment other than 4 or 8".into()
    } else if has("class") || has("endianness") || has("data type") {
        "its identification bytes (class or data encoding) are invalid".into()
    } else {
        "its headers are inconsistent: an offset, size or count is impossible".into()
    }
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElfError::Unreadable(e) => write!(f, "cannot read the file: {e}"),
            ElfError::NotElf => write!(f, "not an ELF file (no ELF magic number)"),
            ElfError::Malformed(e) => write!(f, "malformed ELF file: {e}"),
            ElfError::Elf64 => write!(f, "64-bit ELF file; mxpsim runs 32-bit RISC-V (RV32IM) firmware"),
            ElfError::BigEndian => {
                write!(f, "big-endian ELF file; RISC-V firmware is little-endian")
            }
            ElfError::WrongMachine(m) => write!(f, "ELF file for {m}, not RISC-V"),
            ElfError::NotExecutable(t) => {
                write!(f, "ELF file of type {} is not an executable; link it first", goblin::elf::header::et_to_str(*t))
            }
            ElfError::UnsupportedFlags(what) => {
                write!(f, "ELF file needs {what}; mxpsim implements RV32IMAC, ABI ilp32")
            }
            ElfError::NoLoadableSegment => write!(f, "ELF file has no loadable (PT_LOAD) segment"),
        }
    }
}

/// Reads and parses the ELF file at `path`.
pub fn load(path: &Path) -> Result<Image, ElfError> {
    let bytes = crate::input::read(path, ELF_LIMIT).map_err(|e| ElfError::Unreadable(e.to_string()))?;
    parse(&bytes)
}

/// Parses an in-memory ELF file.
pub fn parse(bytes: &[u8]) -> Result<Image, ElfError> {
    if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
        return Err(ElfError::NotElf);
    }
    // Class and byte order first, so such files get a precise message rather than whatever
    // the full parse trips over.
    match bytes.get(4) {
        Some(1) => {}
        Some(2) => return Err(ElfError::Elf64),
        _ => return Err(ElfError::Malformed("invalid ELF class byte".into())),
    }
    match bytes.get(5) {
        Some(1) => {}
        Some(2) => return Err(ElfError::BigEndian),
        _ => return Err(ElfError::Malformed("invalid ELF data-encoding byte".into())),
    }
    let elf = Elf::parse(bytes).map_err(|e| ElfError::Malformed(explain_parse_error(e, bytes.len())))?;
    let h = &elf.header;
    if h.e_machine != EM_RISCV {
        return Err(ElfError::WrongMachine(goblin::elf::header::machine_to_str(h.e_machine).to_string()));
    }
    if h.e_type != ET_EXEC {
        return Err(ElfError::NotExecutable(h.e_type));
    }
    if h.e_flags & EF_RISCV_FLOAT_ABI != 0 {
        return Err(ElfError::UnsupportedFlags("a floating-point ABI".into()));
    }
    if h.e_flags & EF_RISCV_RVE != 0 {
        return Err(ElfError::UnsupportedFlags("the RV32E base".into()));
    }
    if h.e_entry & 1 != 0 {
        return Err(ElfError::Malformed(format!(
            "the entry point {:#x} is odd: no instruction starts there",
            h.e_entry
        )));
    }

    let mut segments = Vec::new();
    for ph in elf.program_headers.iter().filter(|ph| ph.p_type == PT_LOAD && ph.p_memsz > 0) {
        let malformed = |what: &str| ElfError::Malformed(format!("segment at {:#x}: {what}", ph.p_paddr));
        if ph.p_filesz > ph.p_memsz {
            return Err(malformed("file size exceeds memory size"));
        }
        let data = bytes
            .get(ph.p_offset as usize..(ph.p_offset + ph.p_filesz) as usize)
            .ok_or_else(|| malformed("data runs past the end of the file"))?;
        segments.push(Segment { addr: ph.p_paddr as u32, data: data.to_vec(), mem_size: ph.p_memsz as u32 });
    }
    if segments.is_empty() {
        return Err(ElfError::NoLoadableSegment);
    }

    let symbols = elf
        .syms
        .iter()
        .filter(|s| matches!(s.st_type(), STT_FUNC | STT_OBJECT | STT_NOTYPE) && s.st_shndx != 0)
        .filter_map(|s| {
            // Skip unnamed symbols, mapping symbols ($x, $d) and assembler-local labels.
            let name = elf.strtab.get_at(s.st_name).filter(|n| !n.is_empty() && !n.starts_with(['$', '.']))?;
            Some(Symbol { name: name.to_string(), addr: s.st_value as u32, size: s.st_size as u32 })
        })
        .collect();

    Ok(Image { entry: h.e_entry as u32, segments, symbols: Symbols::new(symbols), file: Arc::from(bytes) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_is_what_runs() {
        let image = |entry, data: &[u8]| Image {
            entry,
            segments: vec![Segment { addr: 0x8000_0000, data: data.to_vec(), mem_size: 16 }],
            symbols: Symbols::default(),
            file: Arc::from(&b"the file"[..]),
        };
        let base = image(0x8000_0000, &[1, 2, 3, 4]);
        let mut other_file = image(0x8000_0000, &[1, 2, 3, 4]);
        other_file.file = Arc::from(&b"rebuilt with other debug information"[..]);
        assert_eq!(base.fingerprint(), other_file.fingerprint());
        assert_ne!(base.fingerprint(), image(0x8000_0004, &[1, 2, 3, 4]).fingerprint());
        assert_ne!(base.fingerprint(), image(0x8000_0000, &[1, 2, 3, 5]).fingerprint());
        // Bytes from the file and zeros of .bss are not the same.
        assert_ne!(base.fingerprint(), image(0x8000_0000, &[1, 2, 3, 4, 0]).fingerprint());
        let mut moved = image(0x8000_0000, &[1, 2, 3, 4]);
        moved.segments[0].addr += 16;
        assert_ne!(base.fingerprint(), moved.fingerprint());
    }

    /// A minimal ELF32 header (52 bytes) plus one program header, built by hand.
    fn elf32(machine: u16, e_type: u16, flags: u32, with_segment: bool) -> Vec<u8> {
        let mut b = vec![0u8; 52];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 1; // 32-bit
        b[5] = 1; // little-endian
        b[6] = 1; // version
        b[16..18].copy_from_slice(&e_type.to_le_bytes());
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b[20..24].copy_from_slice(&1u32.to_le_bytes());
        b[24..28].copy_from_slice(&0x8000_0000u32.to_le_bytes()); // entry
        b[36..40].copy_from_slice(&flags.to_le_bytes());
        b[40..42].copy_from_slice(&52u16.to_le_bytes()); // ehsize
        if with_segment {
            b[28..32].copy_from_slice(&52u32.to_le_bytes()); // phoff
            b[42..44].copy_from_slice(&32u16.to_le_bytes()); // phentsize
            b[44..46].copy_from_slice(&1u16.to_le_bytes()); // phnum
            let mut ph = vec![0u8; 32];
            ph[0..4].copy_from_slice(&PT_LOAD.to_le_bytes());
            ph[4..8].copy_from_slice(&84u32.to_le_bytes()); // offset
            ph[8..12].copy_from_slice(&0x8000_0000u32.to_le_bytes()); // vaddr
            ph[12..16].copy_from_slice(&0x8000_0000u32.to_le_bytes()); // paddr
            ph[16..20].copy_from_slice(&4u32.to_le_bytes()); // filesz
            ph[20..24].copy_from_slice(&16u32.to_le_bytes()); // memsz
            b.extend(ph);
            b.extend(0x0000_006fu32.to_le_bytes()); // j .
        }
        b
    }

    #[test]
    fn accepts_a_minimal_rv32_executable() {
        let image = parse(&elf32(EM_RISCV, ET_EXEC, 0, true)).unwrap();
        assert_eq!(image.entry, 0x8000_0000);
        assert_eq!(image.segments, [Segment { addr: 0x8000_0000, data: vec![0x6f, 0, 0, 0], mem_size: 16 }]);
    }

    #[test]
    fn each_unusable_file_gets_its_own_error() {
        assert_eq!(parse(b"#!/bin/sh\n").unwrap_err(), ElfError::NotElf);
        assert_eq!(parse(b"").unwrap_err(), ElfError::NotElf);
        let mut elf64 = elf32(EM_RISCV, ET_EXEC, 0, true);
        elf64[4] = 2;
        assert_eq!(parse(&elf64).unwrap_err(), ElfError::Elf64);
        let mut be = elf32(EM_RISCV, ET_EXEC, 0, true);
        be[5] = 2;
        assert_eq!(parse(&be).unwrap_err(), ElfError::BigEndian);
        assert_eq!(parse(&elf32(62, ET_EXEC, 0, true)).unwrap_err(), ElfError::WrongMachine("X86_64".into()));
        assert_eq!(parse(&elf32(EM_RISCV, 1, 0, true)).unwrap_err(), ElfError::NotExecutable(1));
        assert!(parse(&elf32(EM_RISCV, ET_EXEC, 0x1, true)).is_ok(), "EF_RISCV_RVC: compressed code runs");
        assert!(matches!(parse(&elf32(EM_RISCV, ET_EXEC, 0x2, true)), Err(ElfError::UnsupportedFlags(_))));
        assert_eq!(parse(&elf32(EM_RISCV, ET_EXEC, 0, false)).unwrap_err(), ElfError::NoLoadableSegment);
        let mut odd_entry = elf32(EM_RISCV, ET_EXEC, 0, true);
        odd_entry[24] = 1; // e_entry = 0x80000001
        assert!(
            matches!(parse(&odd_entry), Err(ElfError::Malformed(m)) if m.contains("entry point 0x80000001 is odd"))
        );
        let truncated = elf32(EM_RISCV, ET_EXEC, 0, true);
        assert!(matches!(parse(&truncated[..60]), Err(ElfError::Malformed(_))));
    }

    #[test]
    fn the_elf_librarys_own_texts_become_sentences_about_the_file() {
        let explained = |text: &str| explain_parse_error(goblin::error::Error::Malformed(text.into()), 1000);
        for (goblin_text, part) in [
            (
                "Section 9 size (4294967280) + offset (1955) is out of bounds. Overflowed: false",
                "a section lies outside",
            ),
            ("Symbol table offset (4294967280) is beyond file boundary (116856)", "the symbol table lies outside"),
            ("Symbol table extends beyond file boundary (requested: 7, available: 3)", "the symbol table lies outside"),
            (
                "Strtable size (9) + offset (4294967280) is out of bounds for 100 #bytes. Overflowed: true",
                "a string table",
            ),
            ("Invalid DT_GNU_HASH: buckets_num=0 min_chain=1 bloom_size=2", "its symbol hash table"),
            ("Unknown values in ELF ident header: class: 9 endianness: 9", "its identification bytes"),
            ("something new", "its headers are inconsistent"),
        ] {
            let sentence = explained(goblin_text);
            assert!(sentence.starts_with(part), "{goblin_text} → {sentence}");
            for leaked in ["Overflowed", "boundary", "requested", "#bytes", "something new", "buckets", "section 9"] {
                assert!(!sentence.contains(leaked), "{goblin_text} → {sentence}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        /// Any corruption of an executable's headers (or of what follows them) is an error
        /// or a loadable image, never a panic.
        #[test]
        fn corrupted_files_never_panic(
            edits in proptest::collection::vec((0usize..120, proptest::prelude::any::<u8>()), 1..12),
            cut in 0usize..130,
        ) {
            let mut bytes = elf32(EM_RISCV, ET_EXEC, 0, true);
            for (at, value) in edits {
                if at < bytes.len() {
                    bytes[at] = value;
                }
            }
            bytes.truncate(cut.max(4));
            let _ = parse(&bytes);
        }
    }

    #[test]
    fn distinct_failures_have_distinct_exit_codes() {
        let errors = [
            ElfError::Unreadable(String::new()),
            ElfError::NotElf,
            ElfError::Elf64,
            ElfError::BigEndian,
            ElfError::WrongMachine(String::new()),
            ElfError::NoLoadableSegment,
        ];
        let mut codes: Vec<u8> = errors.iter().map(|e| e.failure().code()).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), errors.len());
    }
}

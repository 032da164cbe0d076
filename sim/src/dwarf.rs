//! An ELF file's DWARF, for gimli: the one place that finds its sections (for the line
//! tables of `source_map` and the variables of `data_names`).

use gimli::{RunTimeEndian, SectionId};
use goblin::elf::section_header::SHF_COMPRESSED;
use goblin::elf::Elf;
use std::ops::Range;

/// The DWARF of the ELF file `bytes`, each section read by `reader` (its byte range in the
/// file, the file's byte order); `None` when the file is not an ELF. A section the file does
/// not have reads as empty, and gimli then finds nothing in it.
pub fn load<R>(bytes: &[u8], reader: impl Fn(Range<usize>, RunTimeEndian) -> R) -> Option<gimli::Dwarf<R>> {
    let elf = Elf::parse(bytes).ok()?;
    let endian = if elf.little_endian { RunTimeEndian::Little } else { RunTimeEndian::Big };
    gimli::Dwarf::load(|id| Ok::<_, ()>(reader(section_range(&elf, bytes.len(), id), endian))).ok()
}

/// Where section `id` lies in the ELF file of `file_len` bytes; an empty range when the file
/// has no such section, or has it compressed (it would need inflating: without it there are
/// no names rather than wrong ones), or names bytes past the file's end.
fn section_range(elf: &Elf, file_len: usize, id: SectionId) -> Range<usize> {
    elf.section_headers
        .iter()
        .find(|sh| elf.shdr_strtab.get_at(sh.sh_name) == Some(id.name()))
        .filter(|sh| sh.sh_flags & u64::from(SHF_COMPRESSED) == 0)
        .and_then(|sh| sh.file_range())
        .filter(|range| range.end <= file_len)
        .unwrap_or(0..0)
}

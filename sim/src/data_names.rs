//! Names for data addresses from the firmware's DWARF debug information: the global or
//! `static` variable a byte range lies in, and where inside it (`desc.len`,
//! `frame_buf[12..16]`, `cfg.rows[2].x`).
//!
//! The ELF symbol table (`symbols.rs`) is not enough for race reports. It has no types, so it
//! names the variable but not the field or the elements a race touched. Size-0 linker symbols
//! such as `__global_pointer$` may sit inside an array, where a nearest-symbol lookup names the
//! label instead of the array. And function-scope statics appear under compiler-made names
//! (`cmdline.0`). DWARF has the source names, exact sizes and the layout of every type.
//!
//! Only variables at a fixed address are read (a location that is a single `DW_OP_addr`).
//! What the table does not understand is left out rather than guessed, and malformed DWARF
//! loses names, never panics.
//!
//! Local variables and parameters are named by their place in a stack frame: an offset from
//! the frame's canonical frame address (CFA: on RISC-V with gcc, the stack pointer at the
//! function's entry, so locals lie below it). gcc gives each function `DW_AT_frame_base` =
//! `DW_OP_call_frame_cfa` and each local whose address is taken, such as a buffer handed to a
//! DMA engine, the location `DW_OP_fbreg N`: CFA + N. Only such locals are read, of functions
//! with that frame base, with the code ranges (`DW_AT_low_pc`/`DW_AT_high_pc` or
//! `DW_AT_ranges`) that find the function of a pc. Locals living in registers or in location
//! lists are not in memory at a fixed place and are left out, and so are locals aligned beyond
//! the 16-byte stack alignment: gcc aligns those at run time and states no location, or one
//! relative to the register holding the aligned address (`DW_OP_breg14 (a4)`), so no CFA
//! offset names them. The locals of inlined callees (`DW_TAG_inlined_subroutine`) are not the
//! containing function's and are left out too; those of its lexical blocks are its own, and
//! where gcc lets locals of disjoint blocks share a stack slot, the one whose block holds the
//! pc is named.

use addr2line::gimli;
use addr2line::gimli::{
    AttributeValue, DebuggingInformationEntry, EndianSlice, Operation, RunTimeEndian, Unit, UnitOffset,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Arc;

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;
type Die<'a> = DebuggingInformationEntry<Slice<'a>>;
type Value<'a> = AttributeValue<Slice<'a>>;

/// How many type references are followed in a row (typedefs and qualifiers count) and how
/// deeply types may nest: ample for real firmware, and a bound on the cycles and endless
/// chains of malformed DWARF (and on the recursion that walks a layout).
const MAX_DEPTH: u32 = 64;

/// The global and `static` variables of a firmware, and the stack-frame locals of its
/// functions, for naming data addresses.
#[derive(Clone, Debug, Default)]
pub struct DataNames {
    /// Sorted by address, then name.
    variables: Vec<Variable>,
    /// Every function with code, in the order of the DWARF.
    functions: Vec<Function>,
    /// The code ranges of the functions: `[begin, end)` and the index in `functions`, sorted.
    code: Vec<(u64, u64, usize)>,
}

/// One global (or static) variable from DWARF: name, address, size, and its type's layout.
#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub addr: u32,
    pub size: u32,
    ty: Arc<Type>,
}

/// A function (a `DW_TAG_subprogram` with code) and its locals at fixed offsets from its CFA.
#[derive(Clone, Debug)]
struct Function {
    /// Empty when the DWARF states none.
    name: String,
    /// `[begin, end)`, sorted; never empty.
    ranges: Vec<(u64, u64)>,
    /// Sorted by CFA offset, then name. Empty when the frame base is not the CFA.
    locals: Vec<Local>,
}

/// A local variable or parameter at a fixed place in its function's frame.
#[derive(Clone, Debug)]
struct Local {
    name: String,
    /// Where it starts relative to the CFA (negative: below it). `cfa_offset + size` does
    /// not overflow.
    cfa_offset: i64,
    size: u32,
    /// The code ranges of the innermost lexical block declaring it; empty: the whole
    /// function's.
    scope: Vec<(u64, u64)>,
    ty: Arc<Type>,
}

/// A type's size and what it is made of. Shared: many variables and members have one type.
#[derive(Debug)]
struct Type {
    size: u32,
    /// Levels of nesting, this one included (at most `MAX_DEPTH`).
    height: u32,
    layout: Layout,
}

#[derive(Debug)]
enum Layout {
    /// No parts with names of their own: base types, enums, pointers.
    Scalar,
    /// A struct, class or union: its members in declaration order.
    Record { is_union: bool, members: Vec<Member> },
    /// One dimension of an array (a multi-dimensional array is an array of arrays): elements
    /// `element.size` bytes apart, as many as fit in the array's size.
    Array { element: Arc<Type> },
}

#[derive(Debug)]
struct Member {
    /// Empty for anonymous structs and unions (and C++ base classes): their members read as
    /// the enclosing record's.
    name: String,
    offset: u32,
    /// The bytes the member occupies: its type's size, or for a bit-field the bytes holding
    /// its bits.
    size: u32,
    ty: Arc<Type>,
}

impl DataNames {
    /// Reads the ELF's DWARF (.debug_info etc.); an ELF without DWARF gives an empty table.
    /// Never panics on malformed DWARF (skip what does not parse).
    pub fn load(elf_bytes: &[u8]) -> DataNames {
        let (mut variables, mut functions) = read_dwarf(elf_bytes).unwrap_or_default();
        // A stable sort, so that of several entries for one variable (say, an abstract and a
        // concrete instance of a function's static) the first read is the one kept.
        variables.sort_by(|a, b| (a.addr, &a.name).cmp(&(b.addr, &b.name)));
        variables.dedup_by(|later, earlier| later.addr == earlier.addr && later.name == earlier.name);
        for function in &mut functions {
            // Stable too: of locals sharing a slot, the first declared stays first.
            function.locals.sort_by(|a, b| (a.cfa_offset, &a.name).cmp(&(b.cfa_offset, &b.name)));
        }
        let mut code: Vec<(u64, u64, usize)> = functions
            .iter()
            .enumerate()
            .flat_map(|(index, function)| function.ranges.iter().map(move |&(begin, end)| (begin, end, index)))
            .collect();
        code.sort_unstable();
        DataNames { variables, functions, code }
    }

    /// The variable containing addr, if any (never a size-0 one). Of overlapping variables,
    /// the smallest, then the first by address and name.
    pub fn variable(&self, addr: u32) -> Option<&Variable> {
        let end = self.variables.partition_point(|v| v.addr <= addr);
        self.variables[..end].iter().filter(|v| addr - v.addr < v.size).min_by_key(|v| v.size)
    }

    /// The access path of the byte range `[addr, addr+len)` inside its variable, e.g.
    /// `desc.len`, `frame_buf[12..16]` (element indices, half-open), `cfg.rows[2].x`, or just
    /// `desc` when the range spans several fields; None when not inside one variable.
    ///
    /// A range that covers a whole member or array stops at its name (`cfg.rows`, not
    /// `cfg.rows[0..4]`); `len` 0 counts as one byte.
    pub fn path(&self, addr: u32, len: u32) -> Option<String> {
        let variable = self.variable(addr)?;
        let start = u64::from(addr - variable.addr);
        let end = start + u64::from(len.max(1));
        if end > u64::from(variable.size) {
            return None;
        }
        let mut path = variable.name.clone();
        describe(&variable.ty, start, end, &mut path);
        Some(path)
    }

    /// The local variable (or parameter) of the function whose code contains `pc` that holds
    /// the bytes at `cfa_offset .. cfa_offset+len` relative to that function's canonical frame
    /// address (CFA = the stack pointer at the function's entry, on RISC-V with gcc), with its
    /// access path inside the variable like `path` does for globals: e.g. "buf",
    /// "buf[2..4]", "desc.len". `len` 0 counts as one byte.
    ///
    /// Only the function's own locals count, those of its lexical blocks included; an inlined
    /// callee's are not its. Of locals sharing the bytes (gcc gives variables of disjoint
    /// blocks one slot), one whose block holds `pc` wins, then the smallest, then the lowest
    /// offset and name. For a caller's frame, pass the address of the call, not the return
    /// address: that may lie past the block, or the function, making the call.
    pub fn local(&self, pc: u32, cfa_offset: i64, len: u32) -> Option<String> {
        let function = self.function(pc)?;
        let (start, end) = (cfa_offset, cfa_offset.checked_add(i64::from(len.max(1)))?);
        let pc = u64::from(pc);
        let in_scope = |local: &Local| {
            local.scope.is_empty() || local.scope.iter().any(|&(begin, past)| (begin..past).contains(&pc))
        };
        let local = function
            .locals
            .iter()
            .filter(|local| local.cfa_offset <= start && end <= local.cfa_offset + i64::from(local.size))
            .min_by_key(|local| (!in_scope(local), local.size))?;
        let mut path = local.name.clone();
        // Both within [0, local.size]: the filter above.
        let (start, end) = ((start - local.cfa_offset) as u64, (end - local.cfa_offset) as u64);
        describe(&local.ty, start, end, &mut path);
        Some(path)
    }

    /// The DWARF name of the function whose code contains `pc` (not an inlined callee's).
    pub fn function_name(&self, pc: u32) -> Option<&str> {
        self.function(pc).map(|f| f.name.as_str()).filter(|n| !n.is_empty())
    }

    /// The function whose code contains `pc`: of nested or overlapping ranges (malformed
    /// DWARF), the smallest, then the first.
    fn function(&self, pc: u32) -> Option<&Function> {
        let pc = u64::from(pc);
        let upto = self.code.partition_point(|&(begin, _, _)| begin <= pc);
        let &(_, _, index) =
            self.code[..upto].iter().filter(|&&(_, end, _)| pc < end).min_by_key(|&&(begin, end, _)| end - begin)?;
        self.functions.get(index)
    }
}

/// Appends to `path` the parts of `ty` that hold the bytes `[start, end)` of it, as far down as
/// one part holds them all.
fn describe(ty: &Type, start: u64, end: u64, path: &mut String) {
    if start == 0 && end >= u64::from(ty.size) {
        return; // The whole object: its name says it all.
    }
    match &ty.layout {
        Layout::Scalar => {}
        Layout::Record { is_union, members } => {
            let holds = |m: &&Member| u64::from(m.offset) <= start && end <= u64::from(m.offset) + u64::from(m.size);
            let member = if *is_union {
                // Every member overlaps every other: take the first that holds the range, so
                // that the name does not depend on anything but the declaration.
                members.iter().find(holds)
            } else {
                // Only a member the range touches alone names it (bit-fields sharing bytes
                // count as several).
                let mut touched = members
                    .iter()
                    .filter(|m| u64::from(m.offset) < end && start < u64::from(m.offset) + u64::from(m.size));
                match (touched.next(), touched.next()) {
                    (Some(only), None) => Some(only).filter(holds),
                    _ => None,
                }
            };
            if let Some(member) = member {
                if !member.name.is_empty() {
                    path.push('.');
                    path.push_str(&member.name);
                }
                let offset = u64::from(member.offset);
                describe(&member.ty, start - offset, end - offset, path);
            }
        }
        Layout::Array { element } => {
            let size = u64::from(element.size);
            if size == 0 {
                return;
            }
            let (first, last) = (start / size, (end - 1) / size);
            if first == last {
                let _ = write!(path, "[{first}]");
                describe(element, start - first * size, end - first * size, path);
            } else {
                let _ = write!(path, "[{first}..{}]", last + 1);
            }
        }
    }
}

/// The variables of the ELF's DWARF, unsorted, and its functions with their locals in DWARF
/// order; `None` when the file is not an ELF.
fn read_dwarf(elf_bytes: &[u8]) -> Option<(Vec<Variable>, Vec<Function>)> {
    let dwarf = crate::dwarf::load(elf_bytes, |range, endian| EndianSlice::new(&elf_bytes[range], endian))?;

    // All units first: a reference may lead from one into another (DW_FORM_ref_addr).
    let mut units = Vec::new();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        // A unit that does not parse is left out; the others still name their variables.
        if let Ok(unit) = dwarf.unit(header) {
            units.push(unit);
        }
    }

    let mut resolver = Resolver { dwarf: &dwarf, units: &units, types: BTreeMap::new(), in_progress: BTreeSet::new() };
    let mut variables = Vec::new();
    let mut functions: Vec<Function> = Vec::new();
    for (index, unit) in units.iter().enumerate() {
        // The entries enclosing the current one that decide whose locals its variables are,
        // innermost last.
        let mut scopes: Vec<Scope> = Vec::new();
        // Every depth: a function's `static` variables are children of the function.
        let mut entries = unit.entries();
        while let Ok(Some(entry)) = entries.next_dfs() {
            let depth = entry.depth();
            while scopes.last().is_some_and(|scope| scope.depth >= depth) {
                scopes.pop();
            }
            let owner = scopes.last().and_then(|scope| scope.function);
            match entry.tag() {
                gimli::DW_TAG_variable | gimli::DW_TAG_formal_parameter => {
                    if entry.tag() == gimli::DW_TAG_variable {
                        variables.extend(resolver.variable(index, entry));
                    }
                    if let (Some(function), Some(scope)) = (owner, scopes.last()) {
                        if let Some(local) = resolver.local(index, entry, &scope.ranges) {
                            functions[function].locals.push(local);
                        }
                    }
                }
                gimli::DW_TAG_subprogram => {
                    // Abstract instances and declarations have no code: not functions, but
                    // their variables are still nobody else's.
                    let ranges = resolver.code_ranges(index, entry);
                    let mut function = None;
                    if !ranges.is_empty() {
                        let name = resolver.inherited(index, entry, gimli::DW_AT_name);
                        let name = name.and_then(|(unit, name)| resolver.string(unit, name)).unwrap_or_default();
                        functions.push(Function { name, ranges, locals: Vec::new() });
                        // Offsets from another frame base would not be CFA offsets.
                        if resolver.frame_base_is_cfa(index, entry) {
                            function = Some(functions.len() - 1);
                        }
                    }
                    scopes.push(Scope { depth, function, ranges: Vec::new() });
                }
                // A block without code of its own (or whose ranges do not parse) is taken to
                // cover its parent's.
                gimli::DW_TAG_lexical_block if owner.is_some() => {
                    let mut ranges = resolver.code_ranges(index, entry);
                    if ranges.is_empty() {
                        ranges = scopes.last().map(|parent| parent.ranges.clone()).unwrap_or_default();
                    }
                    scopes.push(Scope { depth, function: owner, ranges });
                }
                // An inlined callee's locals are its own, in the caller's frame.
                gimli::DW_TAG_inlined_subroutine => scopes.push(Scope { depth, function: None, ranges: Vec::new() }),
                _ => {}
            }
        }
    }
    Some((variables, functions))
}

/// An entry whose children's variables belong to one function, or to none.
struct Scope {
    /// The entry's depth in its unit.
    depth: isize,
    /// The index in `functions` of the function whose locals its variables are; `None` for
    /// an inlined callee, or a function without code or with another frame base.
    function: Option<usize>,
    /// The code of the innermost lexical block; empty: the whole function's.
    ranges: Vec<(u64, u64)>,
}

/// Reads variables and lays out their types, from the units of one `Dwarf`. Units are named
/// by their index in `units`.
struct Resolver<'d, 'a> {
    dwarf: &'d gimli::Dwarf<Slice<'a>>,
    units: &'d [Unit<Slice<'a>>],
    /// Types already laid out (or found unusable), by unit and offset: each is read once,
    /// however many variables and members share it.
    types: BTreeMap<(usize, usize), Option<Arc<Type>>>,
    /// Types being laid out, to cut the cycles of malformed DWARF.
    in_progress: BTreeSet<(usize, usize)>,
}

impl<'a> Resolver<'_, 'a> {
    /// The variable a `DW_TAG_variable` entry describes, if it has a fixed address, a name
    /// and a type of known, non-zero size.
    fn variable(&mut self, unit: usize, entry: &Die<'a>) -> Option<Variable> {
        let addr = self.address(unit, entry)?;
        let (name_unit, name) = self.inherited(unit, entry, gimli::DW_AT_name)?;
        let name = self.string(name_unit, name).filter(|name| !name.is_empty())?;
        let (type_unit, ty) = self.inherited(unit, entry, gimli::DW_AT_type)?;
        let ty = self.type_at(type_unit, ty, 0)?;
        // Past the top of the address space is a malformed entry, not a variable.
        if ty.size == 0 || u64::from(addr) + u64::from(ty.size) > 1u64 << 32 {
            return None;
        }
        Some(Variable { name, addr, size: ty.size, ty })
    }

    /// The local a `DW_TAG_variable` or `DW_TAG_formal_parameter` of a function describes, if
    /// its location is a single `DW_OP_fbreg` (an offset from the CFA, the frame base
    /// checked by the caller) and it has a name and a type of known, non-zero size. `scope`:
    /// the code of its lexical block, empty for the whole function.
    fn local(&mut self, unit: usize, entry: &Die<'a>, scope: &[(u64, u64)]) -> Option<Local> {
        let location = entry.attr_value(gimli::DW_AT_location)?.exprloc_value()?;
        let mut ops = location.operations(self.units[unit].encoding());
        let cfa_offset = match (ops.next(), ops.next()) {
            (Ok(Some(Operation::FrameOffset { offset })), Ok(None)) => offset,
            _ => return None,
        };
        let (name_unit, name) = self.inherited(unit, entry, gimli::DW_AT_name)?;
        let name = self.string(name_unit, name).filter(|name| !name.is_empty())?;
        let (type_unit, ty) = self.inherited(unit, entry, gimli::DW_AT_type)?;
        let ty = self.type_at(type_unit, ty, 0)?;
        if ty.size == 0 {
            return None;
        }
        cfa_offset.checked_add(i64::from(ty.size))?;
        Some(Local { name, cfa_offset, size: ty.size, scope: scope.to_vec(), ty })
    }

    /// Whether a subprogram's frame base is its CFA: a single `DW_OP_call_frame_cfa`, what
    /// gcc writes.
    fn frame_base_is_cfa(&self, unit: usize, entry: &Die<'a>) -> bool {
        let Some(frame_base) = entry.attr_value(gimli::DW_AT_frame_base).and_then(|value| value.exprloc_value()) else {
            return false;
        };
        let mut ops = frame_base.operations(self.units[unit].encoding());
        matches!((ops.next(), ops.next()), (Ok(Some(Operation::CallFrameCFA)), Ok(None)))
    }

    /// The code of a subprogram or lexical block, `[begin, end)` sorted: `DW_AT_ranges`, or
    /// `DW_AT_low_pc` to `DW_AT_high_pc` (an address, or with a constant the length). Empty
    /// ranges, tombstones and ranges beyond 32-bit addresses are left out; of a range list
    /// that stops parsing, the ranges before.
    fn code_ranges(&self, unit: usize, entry: &Die<'a>) -> Vec<(u64, u64)> {
        let unit = &self.units[unit];
        let mut ranges = Vec::new();
        if let Some(value) = entry.attr_value(gimli::DW_AT_ranges) {
            if let Ok(Some(mut list)) = self.dwarf.attr_ranges(unit, value) {
                while let Ok(Some(range)) = list.next() {
                    ranges.push((range.begin, range.end));
                }
            }
        } else if let Some(low_pc) = entry.attr_value(gimli::DW_AT_low_pc) {
            // Not `Dwarf::die_ranges`: it adds a length to low_pc unchecked.
            let begin = self.dwarf.attr_address(unit, low_pc).ok().flatten();
            let end = match entry.attr_value(gimli::DW_AT_high_pc) {
                Some(AttributeValue::Udata(length)) => begin.and_then(|begin| begin.checked_add(length)),
                Some(high_pc) => self.dwarf.attr_address(unit, high_pc).ok().flatten(),
                None => None,
            };
            if let (Some(begin), Some(end)) = (begin, end) {
                ranges.push((begin, end));
            }
        }
        // Address 0 is what linkers leave for the code of garbage-collected sections, as for
        // variables.
        ranges.retain(|&(begin, end)| {
            begin != 0 && !unit.header.is_tombstone_address(begin) && begin < end && end <= 1u64 << 32
        });
        ranges.sort_unstable();
        ranges
    }

    /// The fixed address of a variable whose location is a single `DW_OP_addr` (or
    /// `DW_OP_addrx`, its DWARF 5 indexed form, which Clang writes).
    fn address(&self, unit: usize, entry: &Die<'a>) -> Option<u32> {
        let unit = &self.units[unit];
        let mut ops = entry.attr_value(gimli::DW_AT_location)?.exprloc_value()?.operations(unit.encoding());
        let addr = match ops.next().ok()?? {
            Operation::Address { address } => address,
            Operation::AddressIndex { index } => self.dwarf.address(unit, index).ok()?,
            _ => return None,
        };
        // Anything after the address computes a value instead (`DW_OP_stack_value`: a local
        // pointer that holds the address of a global, not the global).
        if !matches!(ops.next(), Ok(None)) {
            return None;
        }
        // 0 and the all-ones tombstones are what linkers leave in the DWARF of variables whose
        // sections were garbage-collected.
        if addr == 0 || unit.header.is_tombstone_address(addr) {
            return None;
        }
        u32::try_from(addr).ok()
    }

    /// `attr` of the entry or, when it has none, of the entry it completes
    /// (`DW_AT_specification`: a definition takes its name and type from the declaration) or
    /// is a concrete instance of (`DW_AT_abstract_origin`); with the unit to read it in.
    fn inherited(&self, unit: usize, entry: &Die<'a>, attr: gimli::DwAt) -> Option<(usize, Value<'a>)> {
        if let Some(value) = entry.attr_value(attr) {
            return Some((unit, value));
        }
        let (mut unit, mut origin) = (unit, origin_of(entry)?);
        for _ in 0..MAX_DEPTH {
            let (origin_unit, offset) = self.target(unit, origin)?;
            let die = self.units[origin_unit].entry(offset).ok()?;
            if let Some(value) = die.attr_value(attr) {
                return Some((origin_unit, value));
            }
            (unit, origin) = (origin_unit, origin_of(&die)?);
        }
        None
    }

    /// The unit and offset a reference points to: within the unit (`DW_FORM_ref*`) or
    /// anywhere in .debug_info (`DW_FORM_ref_addr`). Type-unit signatures are not followed.
    fn target(&self, unit: usize, value: Value<'a>) -> Option<(usize, UnitOffset)> {
        match value {
            AttributeValue::UnitRef(offset) => Some((unit, offset)),
            AttributeValue::DebugInfoRef(offset) => self
                .units
                .iter()
                .enumerate()
                .find_map(|(index, unit)| Some((index, offset.to_unit_offset(&unit.header)?))),
            _ => None,
        }
    }

    fn string(&self, unit: usize, value: Value<'a>) -> Option<String> {
        let bytes = self.dwarf.attr_string(&self.units[unit], value).ok()?;
        Some(String::from_utf8_lossy(bytes.slice()).into_owned())
    }

    /// The layout of the type a `DW_AT_type` value refers to; `None` when its size is unknown
    /// (`void`, incomplete types, variable-length arrays) or it does not parse.
    fn type_at(&mut self, unit: usize, value: Value<'a>, depth: u32) -> Option<Arc<Type>> {
        let (unit, offset) = self.target(unit, value)?;
        let key = (unit, offset.0);
        if let Some(known) = self.types.get(&key) {
            return known.clone();
        }
        if depth >= MAX_DEPTH || !self.in_progress.insert(key) {
            return None;
        }
        let ty = self.lay_out(unit, offset, depth).filter(|ty| ty.height <= MAX_DEPTH);
        self.in_progress.remove(&key);
        self.types.insert(key, ty.clone());
        ty
    }

    fn lay_out(&mut self, unit: usize, offset: UnitOffset, depth: u32) -> Option<Arc<Type>> {
        let die = self.units[unit].entry(offset).ok()?;
        let byte_size = die.attr_value(gimli::DW_AT_byte_size).and_then(|v| v.udata_value());
        let byte_size = byte_size.and_then(|size| u32::try_from(size).ok());
        let scalar = |size: u32| Some(Arc::new(Type { size, height: 1, layout: Layout::Scalar }));
        match die.tag() {
            gimli::DW_TAG_typedef
            | gimli::DW_TAG_const_type
            | gimli::DW_TAG_volatile_type
            | gimli::DW_TAG_restrict_type
            | gimli::DW_TAG_atomic_type => self.type_at(unit, die.attr_value(gimli::DW_AT_type)?, depth + 1),
            gimli::DW_TAG_structure_type | gimli::DW_TAG_class_type | gimli::DW_TAG_union_type => {
                // A declaration only (`struct foo;`) has no size, and nothing to lay out.
                let size = byte_size?;
                let members = self.members(unit, offset, depth);
                let height = 1 + members.iter().map(|m| m.ty.height).max().unwrap_or(0);
                let is_union = die.tag() == gimli::DW_TAG_union_type;
                Some(Arc::new(Type { size, height, layout: Layout::Record { is_union, members } }))
            }
            gimli::DW_TAG_array_type => self.array(unit, offset, &die, depth),
            // A pointer may leave its size implicit: the unit's address size.
            gimli::DW_TAG_pointer_type | gimli::DW_TAG_reference_type | gimli::DW_TAG_rvalue_reference_type => {
                scalar(byte_size.unwrap_or_else(|| u32::from(self.units[unit].header.address_size())))
            }
            // An enum may state its size only through its underlying type.
            gimli::DW_TAG_enumeration_type if byte_size.is_none() => {
                self.type_at(unit, die.attr_value(gimli::DW_AT_type)?, depth + 1)
            }
            // Base types, enums, and whatever else states a size. (Function types state none.)
            _ => scalar(byte_size?),
        }
    }

    /// The data members of the struct, class or union at `offset`, C++ base classes as
    /// unnamed members; a member whose type or place cannot be read is left out.
    fn members(&mut self, unit: usize, offset: UnitOffset, depth: u32) -> Vec<Member> {
        let units = self.units;
        let mut members = Vec::new();
        for child in children(&units[unit], offset) {
            // Static data members (C++) are declarations: they live elsewhere, as variables.
            let is_data = matches!(child.tag(), gimli::DW_TAG_member | gimli::DW_TAG_inheritance);
            if !is_data || child.attr_value(gimli::DW_AT_declaration).is_some() {
                continue;
            }
            let Some(ty) = child.attr_value(gimli::DW_AT_type).and_then(|ty| self.type_at(unit, ty, depth + 1)) else {
                continue;
            };
            let Some((at, size)) = self.placement(unit, &child, ty.size) else {
                continue;
            };
            let name = child.attr_value(gimli::DW_AT_name).and_then(|name| self.string(unit, name)).unwrap_or_default();
            members.push(Member { name, offset: at, size, ty });
        }
        members
    }

    /// Where a member lies in its record: byte offset and size. A bit-field takes the bytes
    /// holding its bits (DWARF 4+), or its storage unit (DWARF 2-3).
    fn placement(&self, unit: usize, member: &Die<'a>, type_size: u32) -> Option<(u32, u32)> {
        let udata = |attr: gimli::DwAt| member.attr_value(attr).and_then(|v| v.udata_value());
        if let Some(location) = member.attr_value(gimli::DW_AT_data_member_location) {
            let offset = match location {
                // Older producers write the offset as an expression: DW_OP_plus_uconst n.
                AttributeValue::Exprloc(expression) => {
                    let mut ops = expression.operations(self.units[unit].encoding());
                    match (ops.next(), ops.next()) {
                        (Ok(Some(Operation::PlusConstant { value })), Ok(None)) => value,
                        _ => return None,
                    }
                }
                constant => constant.udata_value()?,
            };
            // A DWARF 2-3 bit-field states its storage unit's size; other members have their
            // type's.
            let size = udata(gimli::DW_AT_byte_size).unwrap_or(u64::from(type_size));
            return Some((u32::try_from(offset).ok()?, u32::try_from(size).ok()?));
        }
        if let (Some(bit_offset), Some(bits)) = (udata(gimli::DW_AT_data_bit_offset), udata(gimli::DW_AT_bit_size)) {
            let first = bit_offset / 8;
            let end = bit_offset.checked_add(bits)?.div_ceil(8);
            return Some((u32::try_from(first).ok()?, u32::try_from(end - first).ok()?));
        }
        // Union members have no location: they all start at 0.
        Some((0, type_size))
    }

    /// The array type `die` at `offset`: its subranges are the dimensions, outermost first.
    fn array(&mut self, unit: usize, offset: UnitOffset, die: &Die<'a>, depth: u32) -> Option<Arc<Type>> {
        let mut element = self.type_at(unit, die.attr_value(gimli::DW_AT_type)?, depth + 1)?;
        let units = self.units;
        let counts = children(&units[unit], offset)
            .iter()
            .filter(|child| child.tag() == gimli::DW_TAG_subrange_type)
            .map(element_count)
            .collect::<Option<Vec<u64>>>()?;
        if counts.is_empty() {
            return None;
        }
        for count in counts.into_iter().rev() {
            let size = u32::try_from(count.checked_mul(u64::from(element.size))?).ok()?;
            let height = element.height + 1;
            if height > MAX_DEPTH {
                return None;
            }
            element = Arc::new(Type { size, height, layout: Layout::Array { element } });
        }
        Some(element)
    }
}

/// The entry a definition completes or a concrete instance instantiates, if any.
fn origin_of<'a>(die: &Die<'a>) -> Option<Value<'a>> {
    die.attr_value(gimli::DW_AT_specification).or_else(|| die.attr_value(gimli::DW_AT_abstract_origin))
}

/// The children of the entry at `offset`, as far as they parse.
fn children<'a>(unit: &Unit<Slice<'a>>, offset: UnitOffset) -> Vec<Die<'a>> {
    let mut children = Vec::new();
    if let Ok(mut tree) = unit.entries_tree(Some(offset)) {
        if let Ok(root) = tree.root() {
            let mut iter = root.children();
            while let Ok(Some(child)) = iter.next() {
                children.push(child.entry().clone());
            }
        }
    }
    children
}

/// The number of elements along one array dimension: `DW_AT_count`, or `DW_AT_upper_bound`
/// (inclusive) from `DW_AT_lower_bound` (0 in C). `None` for a bound that is not a constant
/// (variable-length arrays) or missing (`int a[]`).
fn element_count(subrange: &Die<'_>) -> Option<u64> {
    if let Some(count) = subrange.attr_value(gimli::DW_AT_count) {
        return count.udata_value();
    }
    let upper = subrange.attr_value(gimli::DW_AT_upper_bound)?.udata_value()?;
    let lower = match subrange.attr_value(gimli::DW_AT_lower_bound) {
        Some(lower) => lower.udata_value()?,
        None => 0,
    };
    upper.checked_add(1)?.checked_sub(lower)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf;
    use goblin::elf::Elf;
    use std::ops::Range;

    fn firmware(path: &str) -> Vec<u8> {
        let path = format!("{}/../firmware/bin/{path}.elf", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn named<'n>(names: &'n DataNames, name: &str) -> &'n Variable {
        names.variables.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}"))
    }

    #[test]
    fn struct_fields_are_named() {
        let bytes = firmware("race-tests/descriptor_cached");
        let names = DataNames::load(&bytes);
        let desc = named(&names, "desc");
        // struct rx_desc: eight uint32_t, 4 bytes each under ilp32.
        assert_eq!(desc.size, 8 * 4);
        assert_eq!(Some(desc.addr), elf::parse(&bytes).unwrap().symbols.addr_of("desc"));
        assert_eq!(desc.addr % 64, 0, "aligned(64)");
        let at = |offset: u32, len| names.path(desc.addr + offset, len);
        assert_eq!(at(0, 4).as_deref(), Some("desc.status"));
        assert_eq!(at(4, 4).as_deref(), Some("desc.len"));
        assert_eq!(at(5, 2).as_deref(), Some("desc.len"), "part of one field");
        assert_eq!(at(28, 4).as_deref(), Some("desc.stamp"));
        assert_eq!(at(2, 4).as_deref(), Some("desc"), "status and len");
        assert_eq!(at(0, 32).as_deref(), Some("desc"));
        assert_eq!(at(30, 4), None, "runs past the end of desc");
        assert_eq!(names.variable(desc.addr + 31).map(|v| v.name.as_str()), Some("desc"));
    }

    #[test]
    fn array_elements_are_named() {
        let bytes = firmware("race-tests/globals_adjacent");
        let names = DataNames::load(&bytes);
        let (flag, rx) = (named(&names, "flag"), named(&names, "rx"));
        // int32_t rx[N] with N = 7; flag is a volatile int32_t (the qualifier looked through).
        assert_eq!((rx.size, flag.size), (7 * 4, 4));
        // The program's own layout check: flag, then rx, on one 32-byte line.
        assert_eq!((flag.addr % 32, rx.addr), (0, flag.addr + 4));
        let at = |offset: u32, len| names.path(rx.addr + offset, len);
        assert_eq!(at(12, 4).as_deref(), Some("rx[3]"));
        assert_eq!(at(13, 1).as_deref(), Some("rx[3]"));
        assert_eq!(at(4, 8).as_deref(), Some("rx[1..3]"));
        assert_eq!(at(2, 4).as_deref(), Some("rx[0..2]"), "parts of two elements");
        assert_eq!(at(0, 28).as_deref(), Some("rx"), "the whole array");
        assert_eq!(names.path(flag.addr, 4).as_deref(), Some("flag"));
        assert_eq!(names.path(flag.addr + 2, 4), None, "flag and rx: two variables");
    }

    #[test]
    fn declarations_and_function_statics_are_named_from_the_source() {
        let bytes = firmware("race-tests/descriptor_cached");
        let names = DataNames::load(&bytes);
        let symbols = elf::parse(&bytes).unwrap().symbols;
        // vbx_init.c defines `vbx_mxp_t *vbx_mxp_ptr;` declared `extern` in vbx.h: the definition
        // takes its name and type from the declaration.
        let ptr = named(&names, "vbx_mxp_ptr");
        assert_eq!((Some(ptr.addr), ptr.size), (symbols.addr_of("vbx_mxp_ptr"), 4));
        // picolibc's crt0 keeps a `static char cmdline[1024]` inside a function, which the
        // symbol table calls `cmdline.0`.
        let cmdline = named(&names, "cmdline");
        assert_eq!((Some(cmdline.addr), cmdline.size), (symbols.addr_of("cmdline.0"), 1024));
        assert_eq!(names.path(cmdline.addr + 10, 1).as_deref(), Some("cmdline[10]"));
    }

    #[test]
    fn linker_labels_do_not_hide_variables() {
        // cache_coherence.c: `static struct { uint32_t cached_tail[2]; uint32_t dma_buf[6]; }
        // shared`, where the linker put __global_pointer$ at shared + 0x18 (nm): inside
        // dma_buf[4], the fifth word after the two of cached_tail.
        let bytes = firmware("tests/cache_coherence");
        let names = DataNames::load(&bytes);
        let symbols = elf::parse(&bytes).unwrap().symbols;
        let gp = symbols.addr_of("__global_pointer$").unwrap();
        assert_eq!(symbols.containing(gp).map(|s| s.name.as_str()), Some("__global_pointer$"));
        let shared = named(&names, "shared");
        assert_eq!((shared.size, gp - shared.addr), (32, 0x18));
        assert_eq!(names.variable(gp).map(|v| v.name.as_str()), Some("shared"));
        assert_eq!(names.path(gp, 4).as_deref(), Some("shared.dma_buf[4]"));
        assert_eq!(names.path(shared.addr + 4, 8).as_deref(), Some("shared"), "cached_tail[1] and dma_buf[0]");
        assert_eq!(names.path(shared.addr + 8, 24).as_deref(), Some("shared.dma_buf"));
        assert!(names.variables.iter().all(|v| !v.name.contains('$')));
    }

    #[test]
    fn no_dwarf_no_names() {
        assert!(DataNames::load(b"").variables.is_empty());
        assert!(DataNames::load(b"\x7fELF, but no more").variables.is_empty());
        // The same firmware with its .debug_info section renamed away.
        let mut bytes = firmware("race-tests/descriptor_cached");
        let at = bytes.windows(12).rposition(|w| w == b".debug_info\0").unwrap();
        bytes[at + 1] = b'X';
        let names = DataNames::load(&bytes);
        assert!(names.variables.is_empty());
        assert_eq!(names.path(0x8020_0580, 4), None);
    }

    /// The instruction words of the code at `addr`, `size` bytes (the firmware is RV32IM
    /// without the C extension: every instruction is 4 bytes).
    fn code_words(image: &elf::Image, addr: u32, size: u32) -> Vec<u32> {
        let segment = image
            .segments
            .iter()
            .find(|s| s.addr <= addr && u64::from(addr) + u64::from(size) <= u64::from(s.addr) + s.data.len() as u64)
            .unwrap_or_else(|| panic!("no code at {addr:#x}"));
        let at = (addr - segment.addr) as usize;
        segment.data[at..at + size as usize]
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect()
    }

    /// `addi rd, rs1, imm` decoded, if `word` is one.
    fn addi(word: u32) -> Option<(u32, u32, i32)> {
        let (opcode, funct3) = (word & 0x7f, (word >> 12) & 7);
        ((opcode, funct3) == (0x13, 0)).then_some(((word >> 7) & 31, (word >> 15) & 31, (word as i32) >> 20))
    }

    #[test]
    fn locals_are_named_by_their_frame_offset() {
        // printf_int.c: `static void t(const char *want, const char *fmt, ...)` declares
        // `char buf[128]` and `va_list ap, ap2` and passes buf to vsnprintf, so buf is in
        // memory: DW_OP_fbreg -192 (readelf). That follows from the code: t allocates a
        // 208-byte frame (`addi sp,sp,-208`; CFA = sp at entry = sp + 208). At its top the
        // variadic register save area (a2..a7 at CFA-24..CFA-4), below it ra and s0..s3
        // (CFA-36..CFA-52), and at the bottom, above the 16-byte-aligned sp, buf at sp + 16
        // (`addi a0,sp,16` before `jal vsnprintf`): CFA - 208 + 16 = -192, up to CFA-64.
        // `ap` (va_start: the address of the first variadic slot, sp + 184) is stored at
        // sp + 12 (`sw s3,12(sp)`): DW_OP_fbreg -196. (ap2 lives in a register: a location
        // list, not named.)
        let bytes = firmware("tests/printf_int");
        let names = DataNames::load(&bytes);
        let image = elf::parse(&bytes).unwrap();
        let t = image.symbols.addr_of("t").unwrap();
        let size = image.symbols.containing(t).filter(|s| s.name == "t").unwrap().size;
        let function = names.function(t).unwrap();
        assert_eq!(function.name, "t");
        assert_eq!(function.ranges, [(u64::from(t), u64::from(t) + u64::from(size))], "low_pc + high_pc length");
        let local = |name: &str| {
            function.locals.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("t has no local {name}"))
        };
        let (buf, ap) = (local("buf"), local("ap"));
        // sizeof buf; va_list is a pointer under ilp32.
        assert_eq!((buf.size, ap.size), (128, 4));
        assert!(function.locals.iter().all(|l| l.name != "ap2"));

        // The offsets from the code itself: the frame size from the first instruction, and
        // buf's address from every `addi rd,sp,16`-like instruction that hands it on (to
        // vsnprintf and strcmp in a0, to printf in a3): all but the varargs pointer (sp+184).
        let code = code_words(&image, t, size);
        let frame = match addi(code[0]) {
            Some((2, 2, imm)) if imm < 0 => -i64::from(imm),
            _ => panic!("t does not start by allocating its frame: {:#010x}", code[0]),
        };
        let taken: BTreeSet<i64> = code
            .iter()
            .filter_map(|&w| addi(w))
            .filter(|&(rd, rs1, _)| rs1 == 2 && rd != 2)
            .map(|(_, _, imm)| i64::from(imm) - frame)
            .collect();
        assert_eq!(frame, 208);
        assert_eq!(taken, BTreeSet::from([-192, -24]), "buf and the variadic arguments");
        assert_eq!((buf.cfa_offset, ap.cfa_offset), (-192, -196));

        let pc = t + 0x50; // `jal vsnprintf`, well inside t
        let at = |offset: i64, len| names.local(pc, offset, len);
        assert_eq!(at(-192, 128).as_deref(), Some("buf"));
        assert_eq!(at(-192 + 10, 1).as_deref(), Some("buf[10]"));
        assert_eq!(at(-192 + 8, 8).as_deref(), Some("buf[8..16]"));
        assert_eq!(at(-65, 1).as_deref(), Some("buf[127]"));
        assert_eq!(at(-196, 4).as_deref(), Some("ap"));
        assert_eq!(at(-194, 1).as_deref(), Some("ap"), "part of ap");
        assert_eq!(at(-194, 4), None, "ap and buf");
        assert_eq!(at(-64, 4), None, "above buf: the saved registers' area");
        assert_eq!(at(-192, 129), None, "past buf's end");
        // The same offsets in another function's frame are not t's locals.
        let main = image.symbols.addr_of("main").unwrap();
        assert_ne!(names.function(main).map(|f| f.name.as_str()), Some("t"));
        assert_ne!(names.local(main, -196, 4).as_deref(), Some("ap"));
        assert!(names.function(t + size).is_none_or(|f| f.name != "t"), "past t's end");
    }

    #[test]
    fn over_aligned_locals_are_not_named() {
        // stack_dma_in.c: produce() declares `int32_t tmp[16] __attribute__((aligned(64)))`
        // and DMAs it. 64 bytes exceeds the 16-byte stack alignment of the RISC-V psABI, so gcc
        // allocates 128 bytes (`addi sp,sp,-128`) and aligns the array at run time (`addi
        // a2,sp,63; andi a2,a2,-64`): tmp lies at CFA-128, -112, -96 or -80 depending on sp at
        // entry, and its DWARF has no DW_AT_location at all. stack_dma_out.c: consume()'s `res`
        // (declared the same way) has `DW_OP_breg14 (a4): 0`, the register holding the aligned
        // address: not a fixed CFA offset either. Neither is named; their frames hold no
        // other local in memory.
        for (path, function, array) in
            [("race-tests/stack_dma_in", "produce", "tmp"), ("race-tests/stack_dma_out", "consume", "res")]
        {
            let bytes = firmware(path);
            let names = DataNames::load(&bytes);
            let pc = elf::parse(&bytes).unwrap().symbols.addr_of(function).unwrap() + 8;
            let found = names.function(pc).unwrap_or_else(|| panic!("{path}: no function at {pc:#x}"));
            assert_eq!(found.name, function);
            assert!(found.locals.iter().all(|l| l.name != array), "{path}: {array} at a fixed CFA offset");
            for offset in (-128..0).step_by(4) {
                assert_eq!(names.local(pc, offset, 4), None, "{path}: CFA{offset}");
            }
        }
    }

    fn debug_sections(bytes: &[u8]) -> Vec<Range<usize>> {
        let elf = Elf::parse(bytes).unwrap();
        [".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".debug_rnglists"]
            .iter()
            .map(|name| {
                let sh = elf.section_headers.iter().find(|sh| elf.shdr_strtab.get_at(sh.sh_name) == Some(*name));
                sh.and_then(|sh| sh.file_range()).unwrap()
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Corrupted debug information loses names, never panics.
        #[test]
        fn corrupted_dwarf_never_panics(
            with_locals in proptest::prelude::any::<bool>(),
            edits in proptest::collection::vec(
                (proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()),
                1..16,
            ),
        ) {
            // Both have locals at fixed frame offsets (picolibc's); printf_int in its own code.
            let mut bytes = firmware(if with_locals { "tests/printf_int" } else { "race-tests/globals_adjacent" });
            let sections = debug_sections(&bytes);
            for (at, value) in edits {
                let section = &sections[at % sections.len()];
                bytes[section.start + at / sections.len() % section.len()] = value;
            }
            let names = DataNames::load(&bytes);
            for v in &names.variables {
                let _ = names.path(v.addr, v.size);
                let _ = names.path(v.addr + v.size / 2, 1);
            }
            for &(begin, end, _) in &names.code {
                // Both below 2^32: ranges beyond are left out.
                let (first, last) = (begin as u32, (end - 1) as u32);
                if let Some(function) = names.function(first) {
                    for l in &function.locals {
                        let _ = names.local(first, l.cfa_offset, l.size);
                        let _ = names.local(last, l.cfa_offset + i64::from(l.size / 2), 1);
                    }
                }
                let _ = names.local(first, -4, 4);
            }
            let _ = names.local(0, i64::MIN, u32::MAX);
            let _ = names.local(u32::MAX, i64::MAX, u32::MAX);
        }
    }
}

//! What reports add to the detector's nodes: call stacks (the hart's call contexts,
//! symbolized with DWARF, inlined frames included), which frames are the firmware's own
//! code, and names for memory (global variables, heap blocks with their allocation stacks).

use super::model::{Frame, HeapBlock, LineContents, Object, Site};
use super::Options;
use crate::heap::{Block, HeapLog};
use crate::machine::RunNotes;
use crate::source_map::SourceMap;
use mxpsim_detector::event::{Origin, Pos, Range, Space};
use mxpsim_models::cpu::calls::SP_VARIES;

pub struct Enricher<'a> {
    source: &'a SourceMap,
    /// The stack's addresses, from the linker's `__stack` (its top) and `__stack_size`.
    stack_region: Option<(u32, u32)>,
    notes: &'a RunNotes,
    heap: HeapLog,
    line_size: u32,
    depth: usize,
    user_code: Option<&'a globset::GlobSet>,
}

/// Frames that are not the firmware's own code: the C library (picolibc/newlib and its
/// startup code), the vbx SDK runtime and headers, and anything without a source file.
/// A frame is the user's when its DWARF file is a relative path outside these.
pub fn is_user_file(file: &str) -> bool {
    const RUNTIME: &[&str] = &["firmware/sdk/", "firmware/apps/vbxware/", "firmware/include/"];
    !(file.starts_with('/')
        || file.starts_with("riscv64-unknown-elf")
        || file.contains("newlib")
        || file.contains("picolibc")
        || file.contains("crt0")
        || RUNTIME.iter().any(|r| file.starts_with(r)))
}

impl<'a> Enricher<'a> {
    pub fn new(source: &'a SourceMap, notes: &'a RunNotes, line_size: u32, options: &'a Options) -> Self {
        let symbols = source.symbols();
        let stack_region = symbols
            .addr_of("__stack")
            .zip(symbols.addr_of("__stack_size"))
            .map(|(top, size)| (top.wrapping_sub(size), top))
            .filter(|(bottom, top)| bottom < top);
        Enricher {
            source,
            stack_region,
            notes,
            heap: HeapLog::new(&notes.heap),
            line_size,
            depth: options.stack_depth.max(1),
            user_code: options.user_code.as_ref(),
        }
    }

    /// Whether a frame of `file` is the firmware's own code: `--user-code`'s globs, else
    /// the default rule.
    fn is_user(&self, file: Option<&str>) -> bool {
        match (file, self.user_code) {
            (Some(file), Some(globs)) => globs.is_match(file),
            (Some(file), None) => is_user_file(file),
            (None, _) => false,
        }
    }

    /// The stack of an instruction run in call context `ctx`: its own frames, then each call
    /// site's, innermost first, cut at the depth limit.
    pub fn stack(&self, pc: u32, ctx: u32) -> (Vec<Frame>, bool) {
        self.stack_of(std::iter::once(pc).chain(self.notes.calls.call_sites(ctx)))
    }

    /// The frames of code addresses, innermost first (each with its inlined frames), cut at
    /// the depth limit.
    fn stack_of(&self, pcs: impl IntoIterator<Item = u32>) -> (Vec<Frame>, bool) {
        let mut frames = Vec::new();
        for pc in pcs {
            for source in self.source.frames(pc) {
                if frames.len() == self.depth {
                    return (frames, true);
                }
                let user = self.is_user(source.file.as_deref());
                frames.push(Frame { source, user });
            }
        }
        (frames, false)
    }

    pub fn site(&self, pos: Pos, origin: Origin) -> Site {
        let (stack, truncated) = self.stack(origin.pc, origin.ctx);
        Site { pos, pc: origin.pc, ctx: origin.ctx, cycle: origin.cycle, stack, truncated }
    }

    fn heap_block(&self, b: &Block, cycle: u64) -> HeapBlock {
        HeapBlock {
            start: b.start,
            size: b.size,
            function: b.function.clone(),
            // The context inside the allocator: its calls, innermost first, start with the
            // allocator's own call (without contexts, an offline trace of an older run: that
            // call alone).
            stack: match self.notes.calls.call_sites(b.ctx) {
                calls if calls.is_empty() => self.stack_of([b.call_site]).0,
                calls => self.stack_of(calls).0,
            },
            freed: b.freed.is_some_and(|f| f <= cycle),
        }
    }

    /// The stack frame holding `addr`, found from the frames of `sites` (the racing sides:
    /// a stack buffer lies in the frame of one of the functions on their stacks). Frame `i`
    /// of a site spans from the next inner frame's address up to its own (the `sp` its
    /// call came with).
    fn stack_frame_at(&self, addr: u32, sites: &[&Site]) -> Option<Object> {
        // The innermost frame reaches down to the stack's bottom (the access's own `sp` is
        // not recorded); without a known stack, only frames bounded on both sides count.
        let (bottom, top) = self.stack_region.unwrap_or((u32::MAX, 0));
        if !(bottom..top).contains(&addr) && self.stack_region.is_some() {
            return None;
        }
        for site in sites {
            let frames = self.notes.calls.frames(site.ctx);
            let mut lower = bottom;
            for (i, &(call_site, frame)) in frames.iter().enumerate() {
                if frame == SP_VARIES {
                    break;
                }
                if lower <= addr && addr < frame {
                    // The code of the frame's function: the site itself, or its call of
                    // the next inner function.
                    let pc = if i == 0 { site.pc } else { frames[i - 1].0 };
                    let function = self.source.function_name(pc).map(str::to_string);
                    let called_from = self.source.frames(call_site).pop().map(|source| {
                        let user = self.is_user(source.file.as_deref());
                        Frame { source, user }
                    });
                    let from = addr as i64 - frame as i64;
                    return Some(Object::Stack { function, pc, frame, path: None, from, to: from, called_from });
                }
                lower = frame;
            }
        }
        None
    }

    /// The object holding `addr` at `cycle`: a global, a heap block, or a stack frame of one
    /// of `sites`' functions.
    fn object_at(&self, addr: u32, cycle: u64, sites: &[&Site]) -> Option<Object> {
        if let Some((name, start, size)) = self.source.global(addr) {
            return Some(Object::Global {
                name: name.to_string(),
                addr: start,
                size,
                from: addr - start,
                to: (addr - start) as u64,
                path: None,
            });
        }
        match self.heap.owner(addr, cycle) {
            Some(b) => Some(Object::Heap {
                block: self.heap_block(b, cycle),
                from: addr - b.start,
                to: (addr - b.start) as u64,
            }),
            None => self.stack_frame_at(addr, sites),
        }
    }

    /// The objects the racing `bytes` belong to, each with the offsets of the racing bytes
    /// in it, in address order (at most a few: a race over a whole array is one object).
    pub fn objects(&self, space: Space, bytes: &[Range], cycle: u64, sites: &[&Site]) -> Vec<Object> {
        const MAX: usize = 8;
        if space == Space::Scratchpad {
            // One object per `vbx_sp_malloc` block the racing bytes start in.
            let mut out: Vec<Object> = Vec::new();
            for r in bytes {
                let block = self.heap.scratchpad_owner(r.start, cycle).map(|b| self.heap_block(b, cycle));
                if let Some(Object::Scratchpad { block: last, to, .. }) = out.last_mut() {
                    if *last == block {
                        *to = r.end();
                        continue;
                    }
                }
                if out.len() == MAX {
                    break;
                }
                out.push(Object::Scratchpad { block, from: r.start, to: r.end() });
            }
            return out;
        }
        let mut out: Vec<Object> = Vec::new();
        for r in bytes {
            let mut addr = r.start as u64;
            while addr < r.end() && out.len() <= MAX {
                let a = addr as u32;
                let (object, end) = match self.object_at(a, cycle, sites) {
                    Some(o) => {
                        let end = object_end(&o).min(r.end());
                        (o, end)
                    }
                    None => (Object::Unnamed { from: a, to: 0 }, r.end()),
                };
                let object = self.with_range(object, a, end);
                // Contiguous bytes of one object are one entry; a gap starts another, so that
                // each entry's bytes are all racing.
                let contiguous = |last: &Object| last.span().is_some_and(|(_, to)| to == a as u64);
                match out.last_mut() {
                    Some(last) if same_object(last, &object) && contiguous(last) => self.extend(last, end),
                    _ => out.push(object),
                }
                addr = end;
            }
        }
        out.truncate(MAX);
        out
    }

    /// Every object overlapping the line at `line` at `cycle`, with the bytes of the line it
    /// holds, in address order: globals, stack frames of the sites' functions, heap blocks
    /// (the innermost: a `vbx_shared_malloc` buffer rather than the `malloc` block around it).
    pub fn line_contents(&self, line: u32, cycle: u64, sites: &[&Site]) -> LineContents {
        let size = self.line_size;
        let end = line as u64 + size as u64;
        let mut objects = Vec::new();
        let mut addr = line as u64;
        while addr < end {
            let found = match self.source.global(addr as u32) {
                Some((name, addr, size)) => {
                    Some(Object::Global { name: name.to_string(), addr, size, from: 0, to: 0, path: None })
                }
                None => self.stack_frame_at(addr as u32, sites),
            };
            match found {
                Some(o) => {
                    // A global is listed field by field (its bytes may be on both sides
                    // of a false sharing): up to where the DWARF field changes.
                    let field = |a: u64| self.source.data_path(a as u32, 1).map(|p| without_elements(&p));
                    let here = field(addr);
                    let mut stop = object_end(&o).min(end);
                    if matches!(o, Object::Global { .. }) && here.is_some() {
                        stop = (addr + 1..stop).find(|&a| field(a) != here).unwrap_or(stop);
                    }
                    objects.push(self.with_range(o, addr as u32, stop));
                    addr = stop;
                }
                None => addr += 1,
            }
        }
        for b in self.heap.overlapping(line, size, cycle) {
            let (from, to) = ((b.start as u64).max(line as u64), b.end().min(end));
            let block = Object::Heap { block: self.heap_block(b, cycle), from: 0, to: 0 };
            objects.push(self.with_range(block, from as u32, to));
        }
        objects.sort_by_key(object_start);
        LineContents { line, size, objects, touched: Vec::new() }
    }
}

/// The first racing (or line) byte's address.
fn object_start(o: &Object) -> u64 {
    match o {
        Object::Global { addr, from, .. } => *addr as u64 + *from as u64,
        Object::Heap { block, from, .. } => block.start as u64 + *from as u64,
        Object::Scratchpad { from, .. } | Object::Unnamed { from, .. } => *from as u64,
        Object::Stack { frame, from, .. } => (*frame as i64 + from) as u64,
    }
}

impl Enricher<'_> {
    /// The object with its racing offsets set to the addresses `[start, end)` (and, for a
    /// global, the DWARF path of those bytes).
    fn with_range(&self, o: Object, start: u32, end: u64) -> Object {
        match o {
            Object::Global { name, addr, size, .. } => {
                let path = self.source.data_path(start, (end - start as u64) as u32);
                Object::Global { name, addr, size, from: start - addr, to: end - addr as u64, path }
            }
            Object::Heap { block, .. } => {
                let base = block.start;
                Object::Heap { block, from: start - base, to: end - base as u64 }
            }
            Object::Scratchpad { block, .. } => Object::Scratchpad { block, from: start, to: end },
            Object::Unnamed { .. } => Object::Unnamed { from: start, to: end },
            Object::Stack { function, pc, frame, called_from, .. } => {
                let (from, to) = (start as i64 - frame as i64, end as i64 - frame as i64);
                let path = self.source.data_local(pc, from, (to - from) as u32);
                Object::Stack { function, pc, frame, path, from, to, called_from }
            }
        }
    }

    /// Extends the object's racing range to the address `end`.
    fn extend(&self, o: &mut Object, end: u64) {
        let start = object_start(o) as u32;
        *o = self.with_range(o.clone(), start, end);
    }
}

/// An access path without its element indices (`rows[2].x` → `rows.x`): which field, not
/// which element.
fn without_elements(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// One past the object's last byte (as an address).
fn object_end(o: &Object) -> u64 {
    match o {
        Object::Global { addr, size, .. } => *addr as u64 + *size as u64,
        Object::Heap { block, .. } => block.start as u64 + block.size as u64,
        Object::Scratchpad { to, .. } | Object::Unnamed { to, .. } => *to,
        Object::Stack { frame, .. } => *frame as u64,
    }
}

fn same_object(a: &Object, b: &Object) -> bool {
    match (a, b) {
        (Object::Global { addr: x, name: n, .. }, Object::Global { addr: y, name: m, .. }) => x == y && n == m,
        (Object::Heap { block: x, .. }, Object::Heap { block: y, .. }) => x.start == y.start && x.size == y.size,
        (Object::Unnamed { .. }, Object::Unnamed { .. }) => true,
        (Object::Stack { frame: x, .. }, Object::Stack { frame: y, .. }) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_code_is_the_firmware_outside_libc_and_the_sdk() {
        assert!(is_user_file("firmware/apps/vbw_vec_add.c"));
        assert!(is_user_file("pp.c"));
        assert!(!is_user_file("riscv64-unknown-elf/../../../newlib/libc/machine/riscv/memset.S"));
        assert!(!is_user_file("firmware/sdk/include/vbx.h"));
        assert!(!is_user_file("/usr/lib/picolibc/riscv64-unknown-elf/include/string.h"));
    }
}

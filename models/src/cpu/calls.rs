//! The hart's call contexts: which chain of calls the running code was reached through, so
//! that every memory event can name its call stack for a single `u32`.
//!
//! A *call context* is a node of a tree: the root is the entry point; a child is one call
//! site (the PC of the calling instruction) reached from its parent context, so a node stands
//! for a whole chain of call sites, and the id costs nothing to carry until a report turns it
//! into a stack. Calls and returns are recognised by the link-register conventions of the
//! RISC-V ISA (unprivileged spec, table "Return-address stack prediction hints encoded in the
//! register operands of a JALR instruction"): `x1`/`x5` are link registers; `jal`/`jalr` that
//! write one push a context, a `jalr` that reads one without writing one pops, and one that
//! reads one link register and writes the other pops then pushes (a coroutine swap).
//!
//! Tail calls (`jal x0`/`jalr x0` through a non-link register) replace the function but not
//! the context: the stack shows the tail-caller's call site, as a debugger's backtrace would.
//! Returns that skip frames (`longjmp`, an exception unwinder) are resynchronised by the
//! stack pointer: a return lands with its caller's `sp`; landing higher, it left every frame
//! that was entered at or below that `sp`.

use std::mem::{offset_of, size_of};

/// The root context: code not reached through any tracked call.
pub const ROOT: u32 = 0;

/// How deep contexts go; deeper calls share their parent's context (a runaway recursion
/// must not grow the tree without bound).
pub(super) const MAX_DEPTH: usize = 4096;

/// The nodes created per [`CallTree`] at most; calls past it stay in their parent's context.
const MAX_NODES: usize = 1 << 22;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    parent: u32,
    /// The calling instruction.
    call_site: u32,
    /// `sp` at the call: the callee's canonical frame address, where its frame begins (it
    /// grows down from there); [`SP_VARIES`] when calls along this chain came with different
    /// values (recursion through another path, `alloca`).
    sp: u32,
}

/// A context whose calls did not all come with the same `sp`.
pub const SP_VARIES: u32 = u32::MAX;

/// One frame of the shadow stack: the context entered by a call, and `sp` at the call.
#[derive(Clone, Copy, Debug)]
struct Frame {
    ctx: u32,
    sp: u32,
}

/// The shadow stack: its first [`MAX_DEPTH`] frames in place, in an array whose entry 0 is
/// the root's (so that the context a return leaves is always `held[depth].ctx`, and compiled
/// code finds a frame by its depth with no test for the bottom: [`Layout`]); the frames
/// deeper than that, which share their parent's context, in a vector.
#[derive(Clone, Debug)]
struct Stack {
    /// `held[d]`: the frame at depth `d` (from 1), for `d` up to [`MAX_DEPTH`].
    held: Box<[Frame; MAX_DEPTH + 1]>,
    /// The frames past [`MAX_DEPTH`].
    deep: Vec<Frame>,
    /// The frames on the stack.
    depth: u32,
}

impl Default for Stack {
    fn default() -> Self {
        let bottom = Frame { ctx: ROOT, sp: u32::MAX };
        let held = vec![bottom; MAX_DEPTH + 1].into_boxed_slice().try_into().expect("MAX_DEPTH + 1 frames");
        Stack { held, deep: Vec::new(), depth: 0 }
    }
}

impl Stack {
    fn push(&mut self, frame: Frame) {
        match self.depth as usize {
            d if d < MAX_DEPTH => self.held[d + 1] = frame,
            _ => self.deep.push(frame),
        }
        self.depth += 1;
    }

    fn top(&self) -> Option<Frame> {
        match self.depth as usize {
            0 => None,
            d if d <= MAX_DEPTH => Some(self.held[d]),
            _ => self.deep.last().copied(),
        }
    }

    fn pop(&mut self) -> Option<Frame> {
        let top = self.top()?;
        if self.depth as usize > MAX_DEPTH {
            self.deep.pop();
        }
        self.depth -= 1;
        Some(top)
    }
}

/// Entries of [`CallTree::recent`] (a power of two; 16 KiB). `vbw_vec_fft` under
/// `--race-check`, whole run (cachegrind): 64 entries 8.359e9 host instructions, 256
/// 8.223e9, 1,024 8.167e9.
pub(super) const RECENT: usize = 1024;

/// See [`CallTree::recent_index`].
pub(super) const RECENT_MIX: u32 = 0x9e37_79b1;

/// A (parent, call site) → child entry of [`CallTree::recent`], with the child's `sp`
/// ([`Node::sp`], kept equal to it: a call site's child is only ever in its entry; an empty
/// entry, [`NO_RECENT`], matches no call whatever its `sp`).
#[derive(Clone, Copy, Debug)]
struct Recent {
    parent: u32,
    call_site: u32,
    ctx: u32,
    sp: u32,
}

/// An entry that matches no call: no context has this id ([`MAX_NODES`] is far below).
const NO_RECENT: Recent = Recent { parent: u32::MAX, call_site: 0, ctx: ROOT, sp: 0 };

#[derive(Clone, Debug)]
pub struct CallTree {
    nodes: Vec<Node>,
    /// (parent, call site) → child. A hash map: its order is never observed (ids are
    /// assigned in order of first call, which is deterministic). Fx's hash: the standard
    /// one's SipHash was most of the cost of each call the recent entries missed.
    children: rustc_hash::FxHashMap<(u32, u32), u32>,
    /// The children found last, direct-mapped by (parent, call site): a loop calls the same
    /// few functions from one context again and again, and a hit here is a compare where the
    /// map hashes (the map's look-up was most of a call's cost under `--race-check`). By the
    /// parent too, not the call site alone: a function called from several contexts in turn
    /// (`vbw_vec_fft`'s fixed-point helpers) missed at every call.
    recent: [Recent; RECENT],
    stack: Stack,
    current: u32,
}

impl Default for CallTree {
    fn default() -> Self {
        CallTree {
            nodes: vec![Node { parent: ROOT, call_site: 0, sp: SP_VARIES }],
            children: Default::default(),
            recent: [NO_RECENT; RECENT],
            stack: Stack::default(),
            current: ROOT,
        }
    }
}

const fn is_link(r: u8) -> bool {
    r == 1 || r == 5
}

/// What a `jal`/`jalr` writing `rd` (reading `rs1`, `None` for `jal`) does to the call
/// contexts: (pops a frame, then pushes one).
pub(super) const fn pops_and_pushes(rd: u8, rs1: Option<u8>) -> (bool, bool) {
    let pops = match rs1 {
        Some(r) => is_link(r) && r != rd,
        None => false,
    };
    (pops, is_link(rd))
}

/// Where compiled code finds, in a [`CallTree`], what the usual call and return change, to
/// make them itself ([`CallTree::call`] and [`CallTree::ret`] otherwise): a call whose recent
/// entry is its own (the parent the current context, the call site, the entry's `sp` the
/// call's or [`SP_VARIES`]) below [`MAX_DEPTH`]; a return at a depth from 1 to [`MAX_DEPTH`]
/// whose top frame's `sp` is not below the return's (else it skips frames). Offsets in the
/// tree, in a [`Frame`] (`held` points at an array of them) and in a recent entry (`recent`:
/// the first of [`RECENT`], `recent_size` bytes apart, found by
/// [`CallTree::recent_index`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub current: usize,
    pub depth: usize,
    pub held: usize,
    pub frame_size: usize,
    pub frame_ctx: usize,
    pub frame_sp: usize,
    pub recent: usize,
    pub recent_size: usize,
    pub recent_parent: usize,
    pub recent_call_site: usize,
    pub recent_ctx: usize,
    pub recent_sp: usize,
}

impl CallTree {
    /// The context the hart is running in.
    #[inline(always)]
    pub fn current(&self) -> u32 {
        self.current
    }

    /// A `jal` (`rs1` = None) or `jalr` at `pc` writing `rd`, executed with stack pointer `sp`
    /// (its value before the jump).
    #[inline]
    pub fn jump(&mut self, pc: u32, rd: u8, rs1: Option<u8>, sp: u32) {
        let (pops, pushes) = pops_and_pushes(rd, rs1);
        if pops {
            self.ret(sp);
        }
        if pushes {
            self.call(pc, sp);
        }
    }

    fn call(&mut self, pc: u32, sp: u32) {
        let parent = self.current;
        if self.stack.depth as usize >= MAX_DEPTH {
            // Still a frame, so that its return pops it and not an outer one; the firmware's
            // own stack bounds how deep this goes.
            self.stack.push(Frame { ctx: parent, sp });
            return;
        }
        let next = self.nodes.len() as u32;
        let recent = &mut self.recent[Self::recent_index(parent, pc)];
        let known = if recent.parent == parent && recent.call_site == pc {
            Some(recent.ctx)
        } else {
            self.children.get(&(parent, pc)).copied()
        };
        let ctx = match known {
            Some(ctx) => {
                let node = &mut self.nodes[ctx as usize];
                if node.sp != sp {
                    node.sp = SP_VARIES;
                }
                *recent = Recent { parent, call_site: pc, ctx, sp: node.sp };
                ctx
            }
            None if self.nodes.len() < MAX_NODES => {
                self.nodes.push(Node { parent, call_site: pc, sp });
                self.children.insert((parent, pc), next);
                *recent = Recent { parent, call_site: pc, ctx: next, sp };
                next
            }
            None => parent,
        };
        self.stack.push(Frame { ctx, sp });
        self.current = ctx;
    }

    fn ret(&mut self, sp: u32) {
        // A return restores the caller's `sp` exactly (the ABI). Above it, the return skipped
        // frames (`longjmp`): every frame entered at or below this `sp` has been left too.
        if self.stack.pop().is_some_and(|f| f.sp < sp) {
            while self.stack.top().is_some_and(|f| f.sp <= sp) {
                self.stack.pop();
            }
        }
        self.current = self.stack.top().map_or(ROOT, |f| f.ctx);
    }

    /// The entry of [`CallTree::recent`] for calls at `pc` from context `parent`: the call
    /// site's halfword number, its low bits changed by the parent's (an odd multiplier: ids
    /// that differ in their low bits differ there). (Compiled code computes it too.)
    fn recent_index(parent: u32, pc: u32) -> usize {
        ((pc >> 1) ^ parent.wrapping_mul(RECENT_MIX)) as usize % RECENT
    }

    /// Where compiled code finds what it changes ([`Layout`]).
    pub(super) const LAYOUT: Layout = Layout {
        current: offset_of!(CallTree, current),
        depth: offset_of!(CallTree, stack.depth),
        held: offset_of!(CallTree, stack.held),
        frame_size: size_of::<Frame>(),
        frame_ctx: offset_of!(Frame, ctx),
        frame_sp: offset_of!(Frame, sp),
        recent: offset_of!(CallTree, recent),
        recent_size: size_of::<Recent>(),
        recent_parent: offset_of!(Recent, parent),
        recent_call_site: offset_of!(Recent, call_site),
        recent_ctx: offset_of!(Recent, ctx),
        recent_sp: offset_of!(Recent, sp),
    };

    /// The context `ctx` was called from (the root for the root or an unknown id).
    pub fn parent(&self, ctx: u32) -> u32 {
        self.nodes.get(ctx as usize).map_or(ROOT, |n| n.parent)
    }

    /// The call sites of context `ctx`, innermost first (empty for the root or an unknown id).
    pub fn call_sites(&self, ctx: u32) -> Vec<u32> {
        self.frames(ctx).into_iter().map(|(call_site, _)| call_site).collect()
    }

    /// The calls of context `ctx`, innermost first, each as (call site, `sp` at the call:
    /// the callee's frame address, or [`SP_VARIES`]).
    pub fn frames(&self, mut ctx: u32) -> Vec<(u32, u32)> {
        let mut frames = Vec::new();
        while let Some(node) = self.nodes.get(ctx as usize).filter(|_| ctx != ROOT) {
            frames.push((node.call_site, node.sp));
            ctx = node.parent;
        }
        frames
    }

    /// Every context as (parent, call site, sp), indexed by id (index 0 is the root): what
    /// a trace needs to resolve contexts offline.
    pub fn nodes(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.nodes.iter().map(|n| (n.parent, n.call_site, n.sp))
    }

    /// A tree from [`CallTree::nodes`] (for reading a trace); `None` if a parent does not
    /// come before its child.
    pub fn from_nodes(nodes: impl IntoIterator<Item = (u32, u32, u32)>) -> Option<CallTree> {
        let mut tree = CallTree { nodes: Vec::new(), ..CallTree::default() };
        for (i, (parent, call_site, sp)) in nodes.into_iter().enumerate() {
            if i > 0 && parent as usize >= i {
                return None;
            }
            tree.nodes.push(Node { parent, call_site, sp });
        }
        if tree.nodes.is_empty() {
            tree.nodes.push(Node { parent: ROOT, call_site: 0, sp: SP_VARIES });
        }
        Some(tree)
    }
}

/// The call instruction that returns to `ret`: a 4-byte `jal`/`jalr` writing a link register
/// at `ret - 4`, else the 2-byte `c.jal`/`c.jalr` at `ret - 2` (compressed and 32-bit code
/// mix, so the length is read from the code). `code` reads memory as the hart fetches it.
pub fn call_site(code: impl Fn(u32, &mut [u8]) -> bool, ret: u32) -> u32 {
    use super::{decode, isa::Op};
    let long = ret.wrapping_sub(4);
    let is_call = |insn: decode::Insn| matches!(insn.op, Op::Jal | Op::Jalr) && is_link(insn.rd());
    match decode::read_instruction(code, long).map(decode::decode) {
        Some(insn) if insn.size() == 4 && is_call(insn) => long,
        _ => ret.wrapping_sub(2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RA: u8 = 1;
    const T0: u8 = 5;
    const ZERO: u8 = 0;

    #[test]
    fn calls_and_returns_follow_the_link_register_hints() {
        let mut t = CallTree::default();
        t.jump(0x100, RA, None, 0x1000); // main calls f
        let f = t.current();
        t.jump(0x200, RA, Some(6), 0xff0); // f calls g through a register (jalr ra, t1)
        let g = t.current();
        assert_eq!(t.call_sites(g), vec![0x200, 0x100]);
        t.jump(0x300, ZERO, Some(RA), 0xff0); // ret
        assert_eq!(t.current(), f);
        t.jump(0x204, ZERO, None, 0xff0); // j: a jump, not a call
        assert_eq!(t.current(), f);
        t.jump(0x208, ZERO, Some(6), 0xff0); // tail call through t1: same context
        assert_eq!(t.current(), f);
        t.jump(0x300, ZERO, Some(RA), 0x1000);
        assert_eq!(t.current(), ROOT);
        // The same chain again gets the same id.
        t.jump(0x100, RA, None, 0x1000);
        assert_eq!(t.current(), f);
        // t0 is a link register too (millicode calls: jal t0 / jr t0).
        t.jump(0x210, T0, None, 0xff0);
        assert_eq!(t.call_sites(t.current()), vec![0x210, 0x100]);
        t.jump(0x400, ZERO, Some(T0), 0xff0);
        assert_eq!(t.current(), f);
    }

    #[test]
    fn calls_that_share_a_recent_entry_keep_their_own_contexts() {
        let mut t = CallTree::default();
        let aliasing = 0x100 + 2 * RECENT as u32;
        let call = |t: &mut CallTree, site| {
            t.jump(site, RA, None, 0x1000);
            let ctx = t.current();
            t.jump(0x900, ZERO, Some(RA), 0x1000);
            ctx
        };
        let (f, g) = (call(&mut t, 0x100), call(&mut t, aliasing));
        assert_ne!(f, g);
        for _ in 0..3 {
            assert_eq!((call(&mut t, 0x100), call(&mut t, aliasing)), (f, g));
        }
        // The same call site from another context is another context.
        t.jump(0x500, RA, None, 0x1000);
        let h = call(&mut t, 0x100);
        assert_eq!(t.call_sites(h), vec![0x100, 0x500]);
    }

    #[test]
    fn a_return_past_several_frames_resynchronises_by_sp() {
        let mut t = CallTree::default();
        t.jump(0x100, RA, None, 0x1000); // main → a (sp at the call 0x1000)
        let a = t.current();
        t.jump(0x200, RA, None, 0xfe0); // a (its sp 0xfe0) → b
        t.jump(0x300, RA, None, 0xfc0); // b (its sp 0xfc0) → c
                                        // longjmp from c back into a's frame: a `jr ra` with sp restored to a's (0xfe0).
        t.jump(0x400, ZERO, Some(RA), 0xfe0);
        assert_eq!(t.current(), a);
        // longjmp back into main: every frame is left.
        t.jump(0x200, RA, None, 0xfe0);
        t.jump(0x300, RA, None, 0xfc0);
        t.jump(0x400, ZERO, Some(RA), 0x1000);
        assert_eq!(t.current(), ROOT);
    }

    #[test]
    fn frames_record_the_callees_frame_address_while_it_is_the_same() {
        let mut t = CallTree::default();
        t.jump(0x100, RA, None, 0x1000);
        t.jump(0x200, RA, None, 0xfe0);
        let g = t.current();
        t.jump(0x300, ZERO, Some(RA), 0xfe0);
        t.jump(0x200, RA, None, 0xfe0); // the same call again, same sp
        assert_eq!(t.frames(g), vec![(0x200, 0xfe0), (0x100, 0x1000)]);
        t.jump(0x300, ZERO, Some(RA), 0xfe0);
        t.jump(0x200, RA, None, 0xfd0); // and with another sp
        assert_eq!(t.frames(g)[0], (0x200, SP_VARIES));
    }

    #[test]
    fn calls_past_the_depth_limit_share_a_context_and_still_return() {
        let mut t = CallTree::default();
        let depth = MAX_DEPTH as u32 + 10;
        for i in 0..depth {
            t.jump(0x100, RA, None, 0x10_0000 - 16 * i);
        }
        assert_eq!(t.call_sites(t.current()).len(), MAX_DEPTH);
        for i in (0..depth).rev() {
            t.jump(0x200, ZERO, Some(RA), 0x10_0000 - 16 * i);
        }
        assert_eq!(t.current(), ROOT);
    }

    /// A return that skips frames (`longjmp`) lands by `sp` in a frame kept in place or in
    /// one deeper than those, and the returns after it go on from there.
    #[test]
    fn a_return_past_several_frames_lands_at_any_depth() {
        let sp_at = |i: u32| 0x10_0000 - 16 * i; // `sp` at the call made at depth i
        let deepest = MAX_DEPTH as u32 + 10;
        for landing in [MAX_DEPTH as u32 - 5, MAX_DEPTH as u32 + 3] {
            let mut t = CallTree::default();
            for i in 0..deepest {
                t.jump(0x100, RA, None, sp_at(i));
            }
            // Back into the frame of the call made at depth `landing`: every frame from there
            // on is left.
            t.jump(0x400, ZERO, Some(RA), sp_at(landing));
            assert_eq!(t.stack.depth, landing);
            assert_eq!(t.call_sites(t.current()).len(), (landing as usize).min(MAX_DEPTH));
            for depth in (0..landing).rev() {
                t.jump(0x200, ZERO, Some(RA), sp_at(depth));
                assert_eq!(t.call_sites(t.current()).len(), (depth as usize).min(MAX_DEPTH));
            }
            assert_eq!((t.current(), t.stack.depth), (ROOT, 0));
        }
    }

    #[test]
    fn a_swap_pops_then_pushes() {
        let mut t = CallTree::default();
        t.jump(0x100, RA, None, 0x1000);
        t.jump(0x200, T0, Some(RA), 0x1000); // jalr t0, ra: return into the caller and link
        assert_eq!(t.call_sites(t.current()), vec![0x200]);
    }

    #[test]
    fn trees_round_trip_through_their_nodes() {
        let mut t = CallTree::default();
        t.jump(0x100, RA, None, 0x1000);
        t.jump(0x200, RA, None, 0xff0);
        let ctx = t.current();
        let copy = CallTree::from_nodes(t.nodes()).unwrap();
        assert_eq!(copy.call_sites(ctx), vec![0x200, 0x100]);
        assert_eq!(copy.frames(ctx), vec![(0x200, 0xff0), (0x100, 0x1000)]);
        assert!(CallTree::from_nodes([(0, 0, 0), (2, 4, 0), (0, 8, 0)]).is_none());
    }
}

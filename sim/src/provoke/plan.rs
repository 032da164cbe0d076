//! The schedules that order a finding's two sides one way and the other: which directives
//! (`mxpsim_models::schedule`) realise "A before B" and "B before A" for each kind of pair,
//! derived from the nodes' intervals in `race-semantics.md` §3.
//!
//! A finding races, so its nodes' intervals overlap: for an engine node `E` requested at `r`
//! and synced at `t`, and a node `X` on the CPU side, `r` lies before `X`'s end and `X`'s start
//! before `t`. Every plan below moves a node only inside its own interval:
//!
//! | other side `X` | `X` before `E` | `E` before `X` |
//! |---|---|---|
//! | CPU access at `q` | hold `E` until the CPU has passed `q` | hurry `E` before `q` |
//! | write-back of `L`, store at `p`, next clean at `s` | keep `L`, write it back just before `E` (holding `E` past `p` and until just before `s` or `t`, whichever comes first) | keep `L` until `E` has taken effect, then let it go (and hurry `E` before `s`) |
//! | fill of `L` for the access at `q`, last flush/inval at `v` | keep `L` from right after `v` until `q` (hold `E` past `v` if it was requested before) | hurry `E` before `q` and read `L`'s clean bytes again just after `E` |
//!
//! Holding `E` that long is legal (it stays inside both intervals) but may also move it past
//! other unsynchronised CPU accesses of its data: the outcome then shows those races' effect
//! too (`vbw_vec_fft_cached_twiddle`'s write-back-first verdicts, for one).
//!
//! "Before `q`" and "after `q`" mean the whole instruction of `q`: an AMO is two nodes, a read
//! and a write, and nothing comes between them.
//!
//! Keeping `L` means: fill it (if it is not cached) and keep its bytes as they are, evictions
//! or not. Under whole-line write-back a write-back carries the line's clean bytes as its fill
//! read them, and the model lets that fill happen any time since the line's last flush or
//! invalidate `v` (rule 9): the keep starts right after `v`, so the write-back carries the
//! oldest bytes it may. Under byte-granular write-back only the dirty bytes matter, and the
//! keep starts at the store.
//!
//! Two engine nodes of the two queues: the one to go first takes effect (with what must precede
//! it in its queue and by the interlocks) just before the other would, waiting for its request
//! if need be.
//!
//! A cache node and a CPU access `U` at `q` that bypasses the cache (`--race-uncached`): the
//! write-back is kept as above and written back just before `q`, or let go just after it; the
//! fill is the one right after the line's last flush or invalidate, kept until its access, or
//! one made again just after `q` (under whole-line write-back after writing a dirty line back
//! just before `q`: a cache fills a dirty line again only after its write-back).

use crate::report::model::Finding;
use mxpsim_detector::event::{Pos, WriteBack};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::RaceNode;
use mxpsim_models::schedule::Directive;

/// What plans need of the first run besides the finding.
pub struct Context<'a> {
    pub write_back: WriteBack,
    /// The position of the latest flush or invalidate of a line (or of the whole cache)
    /// before a CPU position (0: none).
    pub last_invalidation: &'a dyn Fn(u32, Pos) -> Pos,
    /// The first and last CPU node of the instruction a node belongs to (an AMO has two:
    /// nothing may come between them).
    pub instruction: &'a dyn Fn(Pos) -> (Pos, Pos),
}

/// One order of a finding's two sides, and the directives that make it happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The side that goes first (0: side A, 1: side B).
    pub first: usize,
    pub directives: Vec<Directive>,
}

/// The two plans of a finding (side A first, then side B first), or why it has none.
pub fn plans(finding: &Finding, context: &Context) -> Result<[Plan; 2], String> {
    let [a, b] = [&finding.sides[0].node, &finding.sides[1].node];
    let (engine, other, engine_side) = match (a.id.kind.is_engine(), b.id.kind.is_engine()) {
        (true, false) => (a, b, 0),
        (false, true) => (b, a, 1),
        (true, true) => {
            // Two engine nodes of the two queues: each goes first in turn.
            let order = |first: &RaceNode, second: &RaceNode| Directive::EngineFirst {
                first: first.id.pos,
                second: second.id.pos,
            };
            return Ok([
                Plan { first: 0, directives: vec![order(a, b)] },
                Plan { first: 1, directives: vec![order(b, a)] },
            ]);
        }
        (false, false) => return uncached_plans(a, b, context),
    };
    let other_first = other_before(engine, other, context)?;
    let engine_first = engine_before(engine, other, context)?;
    let other_side = 1 - engine_side;
    let mut plans =
        [Plan { first: other_side, directives: other_first }, Plan { first: engine_side, directives: engine_first }];
    plans.sort_by_key(|p| p.first);
    Ok(plans)
}

/// The two plans of a race between a cache node and a CPU access that bypasses the cache.
fn uncached_plans(a: &RaceNode, b: &RaceNode, context: &Context) -> Result<[Plan; 2], String> {
    let (cache, access, cache_side) = match (a.id.kind.is_cache(), b.id.kind.is_cache()) {
        (true, false) => (a, b, 0),
        (false, true) => (b, a, 1),
        _ => return Err(format!("a race between a {} node and a {} node has no plan", a.id.kind, b.id.kind)),
    };
    let line = line_of(cache)?;
    let (first, last) = (context.instruction)(access.id.pos);
    let (cache_first, access_first) = match cache.id.kind {
        NodeKind::WriteBack => {
            let keep = keep(cache, line, context);
            let write_back = Directive::WriteBackBeforeAccess { line, before: first };
            (vec![keep.clone(), write_back], vec![keep, Directive::LetGoAfter { line, after: last }])
        }
        _ => {
            // The fill right after the line's last flush or invalidate, kept until its
            // access; or a fill again right after the uncached access.
            let (_, fill_last) = (context.instruction)(cache.id.pos);
            let keep = Directive::KeepLine { line, from: cache.pred + 1 };
            let refresh = Directive::RefreshAfterAccess { line, before: first, after: last };
            (vec![keep, Directive::LetGoAfter { line, after: fill_last }], vec![refresh])
        }
    };
    let mut plans =
        [Plan { first: cache_side, directives: cache_first }, Plan { first: 1 - cache_side, directives: access_first }];
    plans.sort_by_key(|p| p.first);
    Ok(plans)
}

/// Directives that put the CPU-side node `x` before the engine node `e`.
fn other_before(e: &RaceNode, x: &RaceNode, context: &Context) -> Result<Vec<Directive>, String> {
    let request = e.id.pos;
    let (_, last) = (context.instruction)(x.id.pos);
    Ok(match x.id.kind {
        NodeKind::WriteBack => {
            let line = line_of(x)?;
            let mut directives = Vec::new();
            if context.write_back == WriteBack::Line {
                directives.push(keep(x, line, context));
            }
            // The engine node waits for the store that dirtied the line (if requested before
            // it), and as long as both intervals allow: until just before the line's clean or
            // the engine node's sync, whichever comes first, so that the write-back carries
            // every store of the line's dirty epoch up to there, not only the first.
            let end = [x.succ, e.succ].into_iter().flatten().min();
            let after = end.map_or(last, |end| (context.instruction)(end - 1).1.max(last));
            if after > request {
                directives.push(Directive::HoldEngine { request, after });
            }
            directives.push(Directive::WriteBackBefore { line, request });
            directives
        }
        NodeKind::Alloc => {
            // The fill right after the line's last flush or invalidate (its `pred`), kept
            // until the access: before the engine node even where a sync lies between the
            // engine node and the access. Requested before that fill could be: it waits.
            let line = line_of(x)?;
            let mut directives = vec![Directive::KeepLine { line, from: x.pred + 1 }];
            if x.pred >= request {
                directives.push(Directive::HoldEngine { request, after: x.pred });
            }
            directives.push(Directive::LetGoAfter { line, after: last });
            directives
        }
        // A CPU access: the engine node after it.
        _ => vec![Directive::HoldEngine { request, after: last }],
    })
}

/// Directives that put the engine node `e` before the CPU-side node `x`.
fn engine_before(e: &RaceNode, x: &RaceNode, context: &Context) -> Result<Vec<Directive>, String> {
    let request = e.id.pos;
    let (first, _) = (context.instruction)(x.id.pos);
    Ok(match x.id.kind {
        NodeKind::WriteBack => {
            let line = line_of(x)?;
            let mut directives = vec![keep(x, line, context), Directive::ReleaseAfter { line, request }];
            // The clean that ends the write-back's interval must not come first.
            if let Some(clean) = x.succ {
                directives.push(Directive::HurryEngine { request, before: clean });
            }
            directives
        }
        NodeKind::Alloc => {
            let line = line_of(x)?;
            vec![Directive::HurryEngine { request, before: first }, Directive::RefreshAfter { line, request }]
        }
        _ => vec![Directive::HurryEngine { request, before: first }],
    })
}

/// The keep of a write-back's line: from just after its last flush or invalidate under
/// whole-line write-back, else from its store.
fn keep(wb: &RaceNode, line: u32, context: &Context) -> Directive {
    let from = match context.write_back {
        WriteBack::Line => (context.last_invalidation)(line, wb.id.pos) + 1,
        WriteBack::DirtyBytes => (context.instruction)(wb.id.pos).0,
    };
    Directive::KeepLine { line, from }
}

fn line_of(node: &RaceNode) -> Result<u32, String> {
    node.id.line.ok_or_else(|| format!("the {} node has no cache line", node.id.kind))
}

//! Every ordering fact a race report states is true of the stream it was found in: on
//! random legal streams (the detector's own property-test generator), each finding's facts
//! ("no sync between the request at q and the access at p; the first sync after q is s",
//! "no clean or flush of line L between the store at w and p; the next one is c", "the
//! last invalidate of L before the load at r is f", "the requests at q1 < q2 have no sync
//! between them", "x comes after y in program order") are checked against the events, the
//! fix's direction is one that can be ordered, and the two sides are unordered in the
//! reference graph. 10^4 cases by default (`PROPTEST_CASES` sets it).

#[path = "../detector/tests/common/mod.rs"]
mod common;

use common::strategies::{case, cases};
use common::{config, reference, stream};
use mxpsim_detector::event::{Access, CacheOp, Event, Pos, Range, Scope};
use mxpsim_detector::node::NodeKind;
use mxpsim_models::events::EventSink;
use mxpsim_sim::exit_code::RunEnd;
use mxpsim_sim::machine::RunNotes;
use mxpsim_sim::race_check::RaceCheck;
use mxpsim_sim::report::model::{LandmarkKind, Ordering};
use mxpsim_sim::report::{build, Options};
use mxpsim_sim::source_map::SourceMap;
use proptest::prelude::*;

/// The CPU nodes of a stream by position (1-based).
fn cpu_nodes(events: &[Event]) -> Vec<&Event> {
    events.iter().filter(|e| e.is_cpu_node()).collect()
}

fn at<'a>(cpu: &[&'a Event], pos: Pos) -> &'a Event {
    cpu[pos as usize - 1]
}

fn maintains(e: &Event, line: u32, invalidating: bool) -> bool {
    matches!(e, Event::CacheMaintenance { op, scope, .. }
        if (*scope == Scope::All || *scope == Scope::Line(line)) && (!invalidating || *op != CacheOp::Clean))
}

/// The first position after `after` whose node satisfies `what`.
fn first_after(cpu: &[&Event], after: Pos, what: impl Fn(&Event) -> bool) -> Option<Pos> {
    (after + 1..=cpu.len() as Pos).find(|&p| what(at(cpu, p)))
}

fn is_sync(e: &Event) -> bool {
    matches!(e, Event::Sync { .. })
}

fn check_ordering(cpu: &[&Event], o: &Ordering, line_size: u32) -> Result<(), String> {
    // A cached access may span lines (the detector splits it).
    let touches = |range: &Range, line: u32| range.overlaps(Range::new(line, line_size));
    match o {
        Ordering::NoSyncBetween { request, then, sync } => {
            let ok = matches!(at(cpu, request.pos), Event::Request { .. })
                && request.pos < then.pos
                && sync.as_ref().map(|s| s.pos) == first_after(cpu, request.pos, is_sync)
                && sync.as_ref().is_none_or(|s| s.pos > then.pos && s.what == LandmarkKind::Sync);
            ok.then_some(()).ok_or("NoSyncBetween".into())
        }
        Ordering::NoFlushBetween { line, store, then, next } => {
            let stored = matches!(at(cpu, store.pos), Event::Cached { access: Access::Write, range, .. }
                if touches(range, *line));
            let next_found = first_after(cpu, store.pos, |e| maintains(e, *line, false));
            let ok = stored
                && store.pos < then.pos
                && next.as_ref().map(|n| n.pos) == next_found
                && next_found.is_none_or(|c| c > then.pos);
            ok.then_some(()).ok_or("NoFlushBetween".into())
        }
        Ordering::FillMayPrecede { line, load, since, done, request } => {
            let loads = matches!(at(cpu, load.pos), Event::Cached { range, .. } if touches(range, *line));
            let last_inval = (1..load.pos).rev().find(|&p| maintains(at(cpu, p), *line, true));
            let mut ok = loads && since.as_ref().map(|s| s.pos) == last_inval;
            if let Some(request) = request {
                let sync = first_after(cpu, request.pos, is_sync).filter(|&s| s < load.pos);
                ok &= matches!(at(cpu, request.pos), Event::Request { .. })
                    && request.pos < load.pos
                    && done.as_ref().map(|d| d.pos) == sync;
            }
            ok.then_some(()).ok_or("FillMayPrecede".into())
        }
        Ordering::NoInterlock { first, second, .. } => {
            let ok = matches!(at(cpu, first.pos), Event::Request { .. })
                && matches!(at(cpu, second.pos), Event::Request { .. })
                && first.pos < second.pos
                && first_after(cpu, first.pos, is_sync).is_none_or(|s| s > second.pos);
            ok.then_some(()).ok_or("NoInterlock".into())
        }
        Ordering::ProgramOrder { x, y } => (x.pos > y.pos).then_some(()).ok_or("ProgramOrder".into()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn every_fact_a_report_states_holds((line_size, write_back, option, program, schedule) in case()) {
        let events = stream(&program, &schedule);
        let config = config(line_size, write_back, option);
        let mut check = RaceCheck::new(config, false).unwrap();
        for e in &events {
            check.emit(e.clone());
        }
        let findings = check.finish();
        let source = SourceMap::new(Default::default(), None);
        let report = build(&findings, &source, &RunNotes::default(), &Options::default(), RunEnd::Exited { status: 0 });
        let analysis = reference(config, &events);
        let cpu = cpu_nodes(&events);
        for f in &report.findings {
            let [a, b] = &f.sides;
            prop_assert!(!analysis.happens_before(a.node.id, b.node.id) && !analysis.happens_before(b.node.id, a.node.id));
            for (direction, o) in f.why.iter().enumerate() {
                let result = check_ordering(&cpu, o, line_size);
                prop_assert!(result.is_ok(), "{:?} {} direction {direction}: a {:?} site {} b {:?} site {}\nstream: {events:#?}",
                    result, f.class(), a.node, a.site.pos, b.node, b.site.pos);
            }
            prop_assert!(!matches!(f.why[f.fix.direction], Ordering::ProgramOrder { .. }), "the fix orders nothing: {:#?}", f.why);
            if a.kind == NodeKind::WriteBack && a.last_store_known {
                let stored = matches!(at(&cpu, a.site.pos), Event::Cached { access: Access::Write, .. });
                prop_assert!(stored, "the last store is a store");
            }
        }
    }
}

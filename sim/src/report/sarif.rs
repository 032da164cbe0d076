//! The report as SARIF 2.1.0 (`--report-format sarif`), for GitHub code scanning and
//! editors' SARIF viewers. The types are `serde-sarif`'s, generated from the OASIS schema
//! (`schemas/sarif-schema-2.1.0.json`), so the field names and nesting cannot drift from it.
//!
//! * one rule per race class (`write-back-vs-dma-read`), with the class's words;
//! * one result per finding (suppressed ones too, with an external suppression naming the
//!   line that matched); its locations are the two sides' top user frames, its message the
//!   headline and the fix;
//! * both sides as the threads of one code flow, each thread the side's stack from the
//!   outermost frame in;
//! * the heap or scratchpad allocation as a related location, the racing bytes' objects and
//!   the line's other objects as related logical locations;
//! * artifact URIs relative to the source root (`--source-root`, default the current
//!   directory), with `uriBaseId` `SRCROOT`; files outside it keep their absolute path.

use super::model::{Finding, Frame, Object, Report, Side};
use super::text;
use serde_sarif::sarif;
use std::path::Path;

/// Where the sources are: artifact URIs are relative to it.
pub struct SourceRoot<'a>(pub &'a Path);

/// The id of the base the relative artifact URIs hang from (a consumer resolves it; GitHub
/// takes the repository's root).
const BASE: &str = "SRCROOT";

pub fn render(report: &Report, root: &SourceRoot) -> String {
    let all: Vec<(&Finding, Option<String>)> = report
        .findings
        .iter()
        .map(|f| (f, None))
        .chain(report.suppressed.iter().map(|(f, by)| (f, Some(justification(&report.suppressions[*by])))))
        .collect();
    let mut rules: Vec<(String, String)> = all.iter().map(|(f, _)| (f.rule(), text::title(f))).collect();
    rules.sort();
    rules.dedup();
    let results = all.iter().map(|(f, by)| result(f, by.as_deref(), &rules, root)).collect::<Vec<_>>();
    let driver = sarif::ToolComponent::builder()
        .name("mxpsim")
        .version(env!("CARGO_PKG_VERSION"))
        .rules(
            rules
                .iter()
                .map(|(id, title)| {
                    sarif::ReportingDescriptor::builder()
                        .id(id.as_str())
                        .short_description(
                            sarif::MultiformatMessageString::builder().text(format!("data race: {title}")).build(),
                        )
                        .default_configuration(
                            sarif::ReportingConfiguration::builder().level(serde_json::json!("error")).build(),
                        )
                        .build()
                })
                .collect::<Vec<_>>(),
        )
        .build();
    let invocation = sarif::Invocation::builder()
        .execution_successful(report.outcome.complete())
        .properties(
            sarif::PropertyBag::builder()
                .additional_properties([(
                    "outcome".to_string(),
                    serde_json::to_value(&report.outcome).expect("plain data"),
                )])
                .build(),
        )
        .build();
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .results(results)
        .build();
    let log = sarif::Sarif::builder()
        .schema("https://json.schemastore.org/sarif-2.1.0.json")
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_string_pretty(&log).expect("plain data") + "\n"
}

/// The suppression that moved a finding aside, as its justification.
fn justification(used: &super::suppress::Used) -> String {
    format!("suppressions file line {}: {}", used.suppression.line, used.suppression)
}

fn result(f: &Finding, suppressed: Option<&str>, rules: &[(String, String)], root: &SourceRoot) -> sarif::Result {
    let rule = f.rule();
    let index = rules.iter().position(|(id, _)| *id == rule).expect("every finding's rule is listed");
    let message = format!(
        "data race ({}): {} in {} and {}. Fix: {}",
        f.class(),
        text::title(f),
        text::short(&f.sides[0].site),
        text::short(&f.sides[1].site),
        text::fix(f)
    );
    let locations: Vec<sarif::Location> = f
        .sides
        .iter()
        .filter_map(|s| s.site.top_user_frame())
        .filter_map(|frame| location(frame, None, root))
        .collect();
    let flows = sarif::CodeFlow::builder()
        .thread_flows(f.sides.iter().zip(["A", "B"]).map(|(s, label)| thread_flow(s, label, root)).collect::<Vec<_>>())
        .build();
    let result = sarif::Result::builder()
        .rule_id(rule)
        .rule_index(index as i64)
        .level(serde_sarif::sarif::ResultLevel::Error)
        .message(sarif::Message::builder().text(message).build())
        .locations(locations)
        .code_flows(vec![flows])
        .related_locations(related(f, root))
        .occurrence_count(f.occurrences as i64)
        .build();
    match suppressed {
        None => result,
        Some(justification) => sarif::Result {
            suppressions: Some(vec![sarif::Suppression::builder()
                .kind(serde_json::json!("external"))
                .justification(justification)
                .build()]),
            ..result
        },
    }
}

/// A side's stack as a thread, outermost frame first.
fn thread_flow(s: &Side, label: &str, root: &SourceRoot) -> sarif::ThreadFlow {
    let depth = s.site.stack.len();
    let locations = s
        .site
        .stack
        .iter()
        .enumerate()
        .rev()
        .map(|(i, frame)| {
            let message = frame.source.function.clone().unwrap_or_else(|| format!("{:#010x}", frame.source.pc));
            let mut step = sarif::ThreadFlowLocation::builder().nesting_level((depth - 1 - i) as i64).build();
            step.location = location(frame, Some(message.clone()), root).or_else(|| {
                Some(sarif::Location::builder().message(sarif::Message::builder().text(message).build()).build())
            });
            step
        })
        .collect::<Vec<_>>();
    sarif::ThreadFlow::builder()
        .id(label)
        .message(sarif::Message::builder().text(format!("{label}: {}", text::side_title(s))).build())
        .locations(locations)
        .build()
}

/// The allocation of a heap or scratchpad block, and every object the racing bytes and
/// their line hold.
fn related(f: &Finding, root: &SourceRoot) -> Vec<sarif::Location> {
    let mut out = Vec::new();
    let objects = f.objects.iter().chain(f.line.iter().flat_map(|l| l.objects.iter()));
    for o in objects {
        let name = text::object(o);
        let allocation = match o {
            Object::Heap { block, .. } | Object::Scratchpad { block: Some(block), .. } => {
                block.stack.iter().find(|fr| fr.user).or(block.stack.first())
            }
            _ => None,
        };
        let located = allocation.and_then(|frame| location(frame, Some(format!("{name}: allocated here")), root));
        let entry = located.unwrap_or_else(|| {
            sarif::Location::builder()
                .message(sarif::Message::builder().text(name.clone()).build())
                .logical_locations(vec![sarif::LogicalLocation::builder().name(name).kind("variable").build()])
                .build()
        });
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    out
}

/// A frame's source position, when its file is known.
fn location(frame: &Frame, message: Option<String>, root: &SourceRoot) -> Option<sarif::Location> {
    let file = frame.source.file.as_deref()?;
    let (uri, base) = artifact_uri(file, root)?;
    let mut artifact = sarif::ArtifactLocation::builder().uri(uri).build();
    artifact.uri_base_id = base.map(str::to_string);
    let mut physical = sarif::PhysicalLocation::builder().artifact_location(artifact).build();
    physical.region = frame.source.line.map(|line| sarif::Region::builder().start_line(i64::from(line)).build());
    let mut location = sarif::Location::builder().physical_location(physical).build();
    location.message = message.map(|text| sarif::Message::builder().text(text).build());
    Some(location)
}

/// A file's URI: relative to the source root (with [`BASE`]) when it lies under it or is
/// relative already (DWARF paths relative to the compilation directory, taken to be the
/// root), else an absolute `file://` URI. `None` for a relative path that climbs out of
/// the root (`../../picocrt/crt0.c`, the C library's own build directory): no file to show.
fn artifact_uri(file: &str, root: &SourceRoot) -> Option<(String, Option<&'static str>)> {
    let path = Path::new(file);
    if path.is_relative() {
        let mut depth = 0i32;
        for part in path.components() {
            match part {
                std::path::Component::ParentDir => depth -= 1,
                std::path::Component::Normal(_) => depth += 1,
                _ => {}
            }
            if depth < 0 {
                return None;
            }
        }
        return Some((encode(file), Some(BASE)));
    }
    Some(match path.strip_prefix(root.0) {
        Ok(relative) => (encode(&relative.to_string_lossy()), Some(BASE)),
        Err(_) => (format!("file://{}", encode(file)), None),
    })
}

/// Percent-encodes what a URI path cannot hold as is.
fn encode(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_uris_are_relative_to_the_root() {
        let root = SourceRoot(Path::new("/work/fw"));
        assert_eq!(artifact_uri("/work/fw/src/a b.c", &root), Some(("src/a%20b.c".into(), Some(BASE))));
        assert_eq!(artifact_uri("app/main.c", &root), Some(("app/main.c".into(), Some(BASE))));
        assert_eq!(artifact_uri("/usr/include/x.h", &root), Some(("file:///usr/include/x.h".into(), None)));
        assert_eq!(artifact_uri("riscv64-unknown-elf/../../../picocrt/crt0.c", &root), None);
        assert_eq!(artifact_uri("a/../b.c", &root), Some(("a/../b.c".into(), Some(BASE))));
    }
}

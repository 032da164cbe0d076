//! Suppressions (`--suppressions FILE`): findings a team has judged and does not want
//! reported again. ThreadSanitizer's syntax, one `KIND:PATTERN` per line, `#` comments and
//! blank lines ignored:
//!
//! * `race:PATTERN` — any frame of either side's stack (function name or source file): the
//!   access, the request, or for a write-back the store a flush must follow (not the store
//!   that first dirtied the line, which may be anyone's);
//! * `race_top:PATTERN` — the top frames only: each side's innermost frame and its first
//!   frame in the firmware's own code (the one the headline names);
//! * `class:PATTERN` — the race class (`wb/dma_r`) or its rule id (`write-back-vs-dma-read`);
//! * `object:PATTERN` — a name of the memory the racing bytes belong to: a global (`frame`,
//!   or a field path `desc.len`), `heap`, `scratchpad`, `stack:FUNCTION`.
//!
//! A pattern matches anywhere in the text unless anchored with `^` (start) or `$` (end);
//! `*` matches any run of characters (TSan's rules).

use super::model::{Finding, Object, Report, Side};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Race,
    RaceTop,
    Class,
    Object,
}

impl Kind {
    const ALL: [(Kind, &'static str); 4] =
        [(Kind::Race, "race"), (Kind::RaceTop, "race_top"), (Kind::Class, "class"), (Kind::Object, "object")];

    fn name(self) -> &'static str {
        Kind::ALL.iter().find(|(k, _)| *k == self).expect("every kind is listed").1
    }
}

/// One line of a suppressions file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    pub kind: Kind,
    pub pattern: String,
    /// Its line in the file (1-based).
    pub line: usize,
}

impl fmt::Display for Suppression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.name(), self.pattern)
    }
}

/// A line that is not a suppression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses a suppressions file.
pub fn parse(text: &str) -> Result<Vec<Suppression>, ParseError> {
    let mut list = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let entry = raw.trim();
        if entry.is_empty() || entry.starts_with('#') {
            continue;
        }
        let error = |message: String| ParseError { line, message };
        let (kind, pattern) = entry.split_once(':').ok_or_else(|| error(format!("`{entry}` is not KIND:PATTERN")))?;
        let kind = Kind::ALL.iter().find(|(_, name)| *name == kind.trim()).map(|&(k, _)| k).ok_or_else(|| {
            let kinds: Vec<_> = Kind::ALL.iter().map(|(_, n)| *n).collect();
            error(format!("unknown kind `{kind}` (kinds: {})", kinds.join(", ")))
        })?;
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(error("empty pattern".into()));
        }
        list.push(Suppression { kind, pattern: pattern.to_string(), line });
    }
    Ok(list)
}

/// TSan's template match: `*` is any run of characters, `^`/`$` anchor at the start/end,
/// otherwise the pattern may match anywhere.
pub fn matches(pattern: &str, text: &str) -> bool {
    let (start_anchored, pattern) = match pattern.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    let (end_anchored, pattern) = match pattern.strip_suffix('$') {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let last = parts.len() - 1;
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        let floating = i > 0 || !start_anchored;
        if i == last && end_anchored {
            // The last part must end the text (and, if it is also the first, start it).
            return if floating { rest.ends_with(part) } else { rest == *part };
        }
        match floating {
            false if !rest.starts_with(part) => return false,
            false => rest = &rest[part.len()..],
            true => match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            },
        }
    }
    true
}

impl Suppression {
    /// True when the suppression matches the finding.
    pub fn matches(&self, finding: &Finding) -> bool {
        let hit = |text: &str| matches(&self.pattern, text);
        match self.kind {
            Kind::Race => finding.sides.iter().flat_map(|s| &s.site.stack).any(|frame| frame_texts(frame).any(hit)),
            Kind::RaceTop => finding.sides.iter().flat_map(top_frames).any(|frame| frame_texts(frame).any(hit)),
            Kind::Class => hit(&finding.class()) || hit(&finding.rule()),
            Kind::Object => finding.objects.iter().flat_map(object_names).any(|name| hit(&name)),
        }
    }
}

/// A side's innermost frame and its first user frame.
fn top_frames(side: &Side) -> impl Iterator<Item = &super::model::Frame> {
    side.site.stack.first().into_iter().chain(side.site.top_user_frame())
}

fn frame_texts(frame: &super::model::Frame) -> impl Iterator<Item = &str> {
    frame.source.function.as_deref().into_iter().chain(frame.source.file.as_deref())
}

/// The names an object answers to.
fn object_names(object: &Object) -> Vec<String> {
    match object {
        Object::Global { name, path, .. } => std::iter::once(name.clone()).chain(path.clone()).collect(),
        Object::Heap { .. } => vec!["heap".into()],
        Object::Scratchpad { .. } => vec!["scratchpad".into()],
        Object::Stack { function, path, .. } => {
            let function = function.as_deref().unwrap_or("??");
            let mut names = vec![format!("stack:{function}")];
            names.extend(path.as_ref().map(|p| format!("stack:{function}/{p}")));
            names
        }
        Object::Unnamed { .. } => vec![],
    }
}

/// How often one suppression matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Used {
    pub suppression: Suppression,
    pub findings: usize,
    pub occurrences: u64,
}

/// Moves the findings a suppression matches (the first that does) from `report.findings`
/// to `report.suppressed`, and counts each suppression's matches.
pub fn apply(report: &mut Report, suppressions: &[Suppression]) {
    report.suppressions =
        suppressions.iter().map(|s| Used { suppression: s.clone(), findings: 0, occurrences: 0 }).collect();
    let findings = std::mem::take(&mut report.findings);
    for finding in findings {
        match suppressions.iter().position(|s| s.matches(&finding)) {
            Some(i) => {
                report.suppressions[i].findings += 1;
                report.suppressions[i].occurrences += finding.occurrences;
                report.suppressed.push((finding, i));
            }
            None => report.findings.push(finding),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_tsan_templates() {
        assert!(matches("vec_add", "vbw_vec_add"));
        assert!(matches("^vbw_", "vbw_vec_add"));
        assert!(!matches("^vec", "vbw_vec_add"));
        assert!(matches("add$", "vbw_vec_add"));
        assert!(!matches("vbw$", "vbw_vec_add"));
        assert!(matches("^vbw_*_add$", "vbw_vec_add"));
        assert!(matches("^vbw_vec_add$", "vbw_vec_add"));
        assert!(!matches("^vbw_vec_ad$", "vbw_vec_add"));
        assert!(matches("firmware/*/vbw_*.c", "firmware/apps/vbw_vec_add.c"));
        assert!(matches("*", ""));
        assert!(matches("a*b*c", "xxaybzc"));
        assert!(!matches("a*b*c", "xxacb"));
        assert!(matches("^a*a$", "aa"));
        assert!(!matches("^a*a$", "a"));
    }

    #[test]
    fn files_parse_with_comments_and_line_numbers() {
        let list =
            parse("# ours\n\nrace:vbw_vec_add\n  race_top:^memset$  \nclass:wb/dma_r\nobject:desc.len\n").unwrap();
        let got: Vec<(Kind, &str, usize)> = list.iter().map(|s| (s.kind, s.pattern.as_str(), s.line)).collect();
        assert_eq!(
            got,
            [
                (Kind::Race, "vbw_vec_add", 3),
                (Kind::RaceTop, "^memset$", 4),
                (Kind::Class, "wb/dma_r", 5),
                (Kind::Object, "desc.len", 6)
            ]
        );
        assert_eq!(list[0].to_string(), "race:vbw_vec_add");
        assert_eq!(parse("race\n").unwrap_err().line, 1);
        assert!(parse("x\nrace:a\nthread:b\n").unwrap_err().message.contains("not KIND:PATTERN"));
        assert!(parse("thread:b\n").unwrap_err().message.contains("unknown kind `thread`"));
        assert!(parse("race:  \n").unwrap_err().message.contains("empty"));
    }
}

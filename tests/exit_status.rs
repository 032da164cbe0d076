//! Exit statuses never hide each other: one test per row of README's precedence table, and
//! README's table of statuses is the one `mxpsim --help` prints (`sim/src/exit_code.rs`).

mod common;
use common::{elf, firmware, mxpsim, stderr, temp};

fn summary(o: &std::process::Output) -> String {
    let err = stderr(o);
    err.lines().find(|l| l.starts_with("SUMMARY: ")).unwrap_or_else(|| panic!("no SUMMARY line in\n{err}")).to_string()
}

/// Rule 1: nothing runs when mxpsim cannot start; an output path that cannot be written is
/// found before the run.
#[test]
fn a_failure_to_start_stops_before_the_firmware_runs() {
    let o = mxpsim(&["run", "--race-check", "--report-file", "/nonexistent/dir/report.txt", &firmware("hello")]);
    assert_eq!(o.status.code(), Some(122), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write the race report to /nonexistent/dir/report.txt"), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the firmware did not run");
    let o = mxpsim(&["run", "--stats-json", "/nonexistent/dir/s.json", &firmware("hello")]);
    assert_eq!(o.status.code(), Some(122));
    assert!(stderr(&o).contains("cannot write the statistics to"), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the firmware did not run");
    let o = mxpsim(&["run", "--bogus", &firmware("hello")]);
    assert_eq!(o.status.code(), Some(2));
}

/// Rule 2: a run that did not finish exits with mxpsim's failure even when it raced, and the
/// race report is still delivered and says how the run ended.
#[test]
fn a_run_that_did_not_finish_wins_over_races() {
    let app = elf("apps", "vbw_vec_power");
    let o = mxpsim(&["run", "--race-check", "--cache", "line=64", "--max-insns", "400000", &app]);
    assert_eq!(o.status.code(), Some(120), "{}", stderr(&o));
    let line = summary(&o);
    assert!(line.starts_with("SUMMARY: mxpsim: 1 data race in "), "{line}");
    assert!(line.ends_with("the run stopped at the instruction limit (400000) before the firmware finished: races after that point are unknown"), "{line}");
    assert!(stderr(&o).contains("mxpsim: error: instruction limit reached"), "{}", stderr(&o));
}

/// Rule 3: races found give 66, or `--race-exitcode`.
#[test]
fn races_give_their_own_status() {
    let app = elf("apps", "vbw_vec_add_2021");
    let o = mxpsim(&["--race-check", "--cache", "line=64", &app]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    assert!(summary(&o).ends_with("; the firmware exited with status 0"), "{}", summary(&o));
    let o = mxpsim(&["--race-check", "--race-exitcode", "9", "--cache", "line=64", &app]);
    assert_eq!(o.status.code(), Some(9), "{}", stderr(&o));
}

/// Rule 4: without (unsuppressed) races, the firmware's own status, named in the SUMMARY line
/// so that a firmware exiting 66 is told from races.
#[test]
fn without_races_the_firmware_status_is_kept_and_named() {
    let o = mxpsim(&["run", "--race-check", &firmware("exit_code")]);
    assert_eq!(o.status.code(), Some(42), "{}", stderr(&o));
    let line = summary(&o);
    assert!(line.starts_with("SUMMARY: mxpsim: 0 data races in "), "{line}");
    assert!(line.ends_with("; the firmware exited with status 42"), "{line}");
}

/// The vec_add race suppressed by a TSan-style suppressions file: exit 0, "1 suppressed".
#[test]
fn a_suppressed_race_leaves_the_firmware_status() {
    let supp = temp("vec_add.supp");
    std::fs::write(&supp, "# the SDK's known race\nrace:vbw_vec_add\nobject:no_such_buffer\n").unwrap();
    let app = elf("apps", "vbw_vec_add_2021");
    let o = mxpsim(&["--race-check", "--cache", "line=64", "--suppressions", &supp, &app]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(summary(&o).starts_with("SUMMARY: mxpsim: 0 data races (1 suppressed) in "), "{err}");
    assert!(err.contains("suppression `object:no_such_buffer` (line 3) matched nothing"), "{err}");
    assert!(!err.contains("matched 1 finding"), "listed only with -v: {err}");
    let o = mxpsim(&["-v", "--race-check", "--cache", "line=64", "--suppressions", &supp, &app]);
    let err = stderr(&o);
    assert!(err.contains("suppression `race:vbw_vec_add` (line 2) matched 1 finding (1 occurrence)"), "{err}");
    // By class and by object too; a pattern that matches no frame leaves the race.
    for (text, status) in [("class:wb/dma_r\n", 0), ("race_top:^main$\n", 0), ("race:^vbw_vec_add$\n", 66)] {
        std::fs::write(&supp, text).unwrap();
        let o = mxpsim(&["--race-check", "--cache", "line=64", "--suppressions", &supp, &app]);
        assert_eq!(o.status.code(), Some(status), "{text}: {}", stderr(&o));
    }
    let o = mxpsim(&["--race-check", "--halt-on-race", "--suppressions", &supp, &app]);
    assert_eq!(o.status.code(), Some(2), "the first race may be a suppressed one");
    std::fs::write(&supp, "thread:x\n").unwrap();
    let o = mxpsim(&["--race-check", "--suppressions", &supp, &app]);
    assert_eq!(o.status.code(), Some(110), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 1: unknown kind `thread`"), "{}", stderr(&o));
}

/// Report options without --race-check are errors, not silence; machine formats need a file.
#[test]
fn report_options_need_a_race_check() {
    let hello = firmware("hello");
    for option in [&["--report-format", "json"][..], &["--suppressions", "x"], &["--race-exitcode", "1"]] {
        let mut args = vec!["run"];
        args.extend(option);
        args.push(&hello);
        let o = mxpsim(&args);
        assert_eq!(o.status.code(), Some(2), "{option:?}");
        assert!(stderr(&o).contains(&format!("{} needs --race-check", option[0])), "{}", stderr(&o));
    }
    let o = mxpsim(&["run", "--race-check", "--report-format", "json", &hello]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--report-format json needs --report-file"), "{}", stderr(&o));
}

/// `mxpsim FW.elf` is `mxpsim run FW.elf`; `mxpsim config` prints the configuration.
#[test]
fn short_forms() {
    let o = mxpsim(&[&firmware("exit_code")]);
    assert_eq!(o.status.code(), Some(42), "{}", stderr(&o));
    let o = mxpsim(&["-v", &firmware("hello")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = mxpsim(&["config"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("[cache]"));
}

/// README's table of exit statuses is the one `--help` prints.
#[test]
fn readme_lists_every_exit_status() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let help = String::from_utf8(mxpsim(&["--help"]).stdout).unwrap();
    for (status, meaning) in mxpsim_sim::exit_code::table() {
        let row = format!("| {status} | {meaning} |");
        assert!(readme.contains(&row), "README lacks the row\n{row}");
        assert!(help.contains(meaning), "--help lacks {meaning}");
    }
}

//! `run --gdb`: gdb-multiarch (Debian's package; CI installs it) drives mxpsim in batch mode
//! over the remote protocol: breakpoints, single steps, registers and CSRs, memory through the
//! cache, a write watchpoint, the `monitor` commands, and a stop at the first race.

mod common;

use common::elf;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStderr, Command, Stdio};

/// The output of a gdb-multiarch batch session on `elf` against `mxpsim run --gdb 0 ARGS
/// ELF`, with mxpsim's standard output, standard error and exit status.
struct Session {
    gdb: String,
    stdout: String,
    stderr: String,
    status: Option<i32>,
}

/// `mxpsim run ARGS --gdb 0 ELF`, started: the process, its standard error after the first
/// line, that line, and the address it listens on (which the line says).
fn listening(elf: &str, mxpsim_args: &[&str]) -> (Child, BufReader<ChildStderr>, String, String) {
    let mut mxpsim = Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .arg("run")
        .args(mxpsim_args)
        .args(["--gdb", "0", elf])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mxpsim starts");
    let mut stderr = BufReader::new(mxpsim.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let addr = first.split("waiting for GDB on ").nth(1).and_then(|t| t.split(' ').next()).expect(&first).to_string();
    (mxpsim, stderr, first, addr)
}

fn debug(elf: &str, mxpsim_args: &[&str], gdb_commands: &[&str]) -> Session {
    let (mxpsim, mut stderr, first, addr) = listening(elf, mxpsim_args);
    let mut gdb = Command::new("timeout");
    gdb.args(["60", "gdb-multiarch", "-batch", "-nx", "-ex", &format!("target remote {addr}")]);
    for command in gdb_commands {
        gdb.args(["-ex", command]);
    }
    let gdb = gdb.arg(elf).stdin(Stdio::null()).output().expect("gdb-multiarch runs (apt-get install gdb-multiarch)");
    assert_ne!(gdb.status.code(), Some(127), "gdb-multiarch not found: apt-get install gdb-multiarch");
    let out = mxpsim.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    Session {
        gdb: String::from_utf8_lossy(&gdb.stdout).into_owned() + &String::from_utf8_lossy(&gdb.stderr),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: first + &rest,
        status: out.status.code(),
    }
}

#[test]
fn breakpoint_step_registers_csrs_memory_and_cache_state() {
    let s = debug(
        &elf("tests", "hello"),
        &[],
        &[
            "break main",
            "continue",
            "stepi",
            "info registers pc",
            "p/x $misa",
            "set $saved = $t6",
            "p/x $t6 = 0x1234",
            "p/x $t6",
            "set $t6 = $saved",
            "x/2xw 0xc0000000",
            "monitor cache 0x80200000",
            "monitor help",
            "continue",
        ],
    );
    let g = &s.gdb;
    assert!(g.contains("Breakpoint 1, main () at firmware/tests/hello.c:10"), "{g}");
    assert!(g.contains("pc             0x80000264"), "one instruction past main's first: {g}");
    assert!(g.contains("$1 = 0x40101105"), "misa: RV32 A C I M U: {g}");
    assert!(g.contains("$3 = 0x1234"), "a register written by the debugger reads back: {g}");
    assert!(g.contains("0xc0000000:\t0x"), "DRAM through the uncached alias: {g}");
    assert!(g.contains("line 0x80200000, set 0: way "), "monitor cache: {g}");
    assert!(g.contains("monitor commands:"), "{g}");
    assert!(g.contains("exited normally"), "{g}");
    assert_eq!((s.status, s.stdout.as_str()), (Some(0), "Hello from mxpsim!\n"), "{}", s.stderr);
}

#[test]
fn a_write_watchpoint_stops_where_the_value_changes() {
    let s = debug(&elf("imac", "atomics"), &[], &["watch counter", "continue", "info registers pc", "kill"]);
    let g = &s.gdb;
    assert!(g.contains("Old value = 0") && g.contains("New value = 10"), "atomic_store(&counter, 10): {g}");
    assert_eq!(s.status, Some(126), "the debugger ended the run: {}", s.stderr);
    assert!(s.stderr.contains("mxpsim: error: the debugger ended the run (kill)"), "{}", s.stderr);
}

#[test]
fn halt_on_race_stops_in_the_debugger_with_the_races_listed() {
    let s = debug(
        &elf("race-tests", "wb_dma_r_pending_store"),
        &["--race-check", "--halt-on-race"],
        &["continue", "monitor races", "continue"],
    );
    let g = &s.gdb;
    assert!(g.contains("Program received signal SIGTRAP"), "{g}");
    assert!(g.contains("1 distinct race(s) so far") && g.contains("1. wb/dma_r: A at "), "{g}");
    assert!(
        s.stderr.contains("mxpsim: the run stopped at the first race (--halt-on-race):\n1 distinct race(s)"),
        "{}",
        s.stderr
    );
    assert!(s.stderr.contains("data race 1 of 1"), "the full report at the end: {}", s.stderr);
    assert_eq!(s.status, Some(66), "{}", s.stderr);
}

/// A debugger whose connection breaks, or that sends what the stub cannot read, ended the run
/// with an error and lost its results (no statistics, no race report). The run now goes on
/// without it, as after a detach, and delivers them.
#[test]
fn a_broken_debugger_connection_leaves_the_run_to_finish() {
    use std::io::Write;
    let racy = elf("race-tests", "wb_dma_r_pending_store");
    for garbage in [&b"$g#00"[..], b"", b"\x01\x02 not a packet"] {
        let stats = common::temp("gdb-broken-stats.json");
        let _ = std::fs::remove_file(&stats);
        let (mxpsim, mut stderr, _, addr) = listening(&racy, &["--race-check", "--stats-json", &stats]);
        let mut connection = std::net::TcpStream::connect(addr).unwrap();
        connection.write_all(garbage).unwrap();
        drop(connection);
        let out = mxpsim.wait_with_output().unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert_eq!(out.status.code(), Some(66), "{garbage:?}: {rest}");
        assert!(rest.contains("mxpsim: warning: --gdb: the debugger's session ended without a detach"), "{rest}");
        assert!(rest.contains("SUMMARY"), "{garbage:?}: the race report: {rest}");
        assert!(std::fs::read_to_string(&stats).unwrap().contains("\"instructions\""), "{garbage:?}");
    }
}

//! Helpers shared by the integration tests that drive the `mxpsim` binary.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// A prebuilt firmware ELF: `firmware/bin/DIR/NAME.elf`.
pub fn elf(dir: &str, name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    root.join("firmware/bin").join(dir).join(format!("{name}.elf")).to_str().unwrap().to_string()
}

/// A test program of `firmware/tests`.
pub fn firmware(name: &str) -> String {
    elf("tests", name)
}

/// A path for `name` in a directory private to this test process.
pub fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("mxpsim-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

pub fn mxpsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mxpsim")).args(args).output().expect("mxpsim runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A finding of `mxpsim provoke`'s JSON report as the firmware headers' `expect-provoke:`
/// lines state it: `CLASS a-before-b=V b-before-a=V`, or `CLASS not-tried`.
pub fn provoke_verdicts(finding: &serde_json::Value) -> String {
    let class = finding["finding"]["class"].as_str().unwrap();
    match finding["attempts"].as_array().unwrap().as_slice() {
        [] => format!("{class} not-tried"),
        attempts => {
            let verdict = |order: &str| {
                let a = attempts.iter().find(|a| a["order"] == order).expect("both orders");
                a["verdict"].as_str().unwrap().to_string()
            };
            format!("{class} a-before-b={} b-before-a={}", verdict("a-before-b"), verdict("b-before-a"))
        }
    }
}

/// Starts `mxpsim ARGS` (with `envs` set) with its output in files, sends `signal` once it has
/// run for `after`, and returns its output.
pub fn interrupted_after(
    after: std::time::Duration,
    args: &[&str],
    envs: &[(&str, &str)],
    signal: &str,
    name: &str,
) -> Output {
    let (out, err) = (temp(&format!("{name}.out")), temp(&format!("{name}.err")));
    let mut child = Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(args)
        .envs(envs.iter().copied())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let sent = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    Output { status, stdout: std::fs::read(out).unwrap(), stderr: std::fs::read(err).unwrap() }
}

/// [`interrupted_after`] 0.7 s, as a run of a long program is surely under way.
pub fn interrupted(args: &[&str], signal: &str, name: &str) -> Output {
    interrupted_after(std::time::Duration::from_millis(700), args, &[], signal, name)
}

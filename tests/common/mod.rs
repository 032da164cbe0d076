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

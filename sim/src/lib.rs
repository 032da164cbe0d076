//! The simulated SoC as a program: builds the machine from a configuration and a firmware
//! ELF, runs it, serves its host calls, and owns the command line and its reports.

pub mod access_log;
pub mod cli;
pub mod config;
pub mod data_names;
pub mod diag;
pub mod distinct_files;
mod dwarf;
pub mod elf;
pub mod event_trace;
pub mod exit_code;
pub mod fit;
pub mod gdb;
pub mod heap;
pub mod htif;
mod input;
pub mod machine;
pub mod progress;
pub mod provoke;
pub mod race_check;
pub mod report;
pub mod semihost;
pub mod signals;
pub mod source_map;
mod std_streams;
pub mod sweep;
pub mod symbols;
pub mod timeline;
pub mod trace;
pub mod uart_input;

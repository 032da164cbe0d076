//! The `mxpsim` command. Everything lives in the `sim` crate; this file only hands it the
//! process's arguments and turns its verdict into an exit status.

fn main() -> std::process::ExitCode {
    mxpsim_sim::cli::main()
}

//! SIGINT and SIGTERM stop a run in an orderly way: the first one sets the run's
//! [`StopRequest`] (the run stops at the next slice boundary, or between the rows of a long
//! accelerator command, and everything it has is delivered); a second one ends the process at
//! once with the same status.

use crate::exit_code::Failure;
use mxpsim_models::stop::StopRequest;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// Installs the handlers (once per process: later calls return the same request, so that a
/// command made of several runs, `run --provoke`, stops them all): the returned request is
/// set when a signal arrives.
pub fn stop_on_signals() -> std::io::Result<StopRequest> {
    static INSTALLED: OnceLock<StopRequest> = OnceLock::new();
    if let Some(stop) = INSTALLED.get() {
        return Ok(stop.clone());
    }
    let stop = StopRequest::default();
    let asked = Arc::new(AtomicBool::new(false));
    for (signal, failure) in [(SIGINT, Failure::Interrupted), (SIGTERM, Failure::Terminated)] {
        // Registered first, so it sees `asked` as the previous signal left it.
        flag::register_conditional_shutdown(signal, failure.code().into(), Arc::clone(&asked))?;
        flag::register(signal, Arc::clone(&asked))?;
        flag::register_usize(signal, stop.word(), signal as usize)?;
    }
    Ok(INSTALLED.get_or_init(|| stop).clone())
}

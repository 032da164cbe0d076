//! The progress line of a long run on a terminal: instructions, simulated cycles, speed and
//! the function the firmware is in, on standard error, redrawn in place and cleared at the end.
//! (Host time is read only for this line, which is never part of a run's results.)

use crate::machine::Machine;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mxpsim_models::events::EventSink;
use std::io::Write;
use std::time::{Duration, Instant};

/// A run shorter than this shows no line.
const QUIET_FOR: Duration = Duration::from_secs(2);
const REDRAW_EVERY: Duration = Duration::from_millis(250);

pub struct ProgressLine {
    start: Instant,
    next: Instant,
    /// Hidden until the run has taken [`QUIET_FOR`].
    bar: ProgressBar,
}

impl ProgressLine {
    /// A line that shows when standard error is a terminal (`None` otherwise).
    pub fn on_terminal() -> Option<ProgressLine> {
        use std::io::IsTerminal;
        let start = Instant::now();
        let bar = ProgressBar::hidden();
        bar.set_style(ProgressStyle::with_template("mxpsim: {spinner} {msg}").expect("a valid template"));
        std::io::stderr().is_terminal().then_some(ProgressLine { start, next: start + QUIET_FOR, bar })
    }

    /// `console` (the firmware's output) made to clear the line before it writes to the
    /// terminal, so that the firmware's lines and the progress line do not mix. A
    /// `line_buffered` console reaches the terminal only with a newline (or a flush): only
    /// then is the line cleared (firmware often writes a byte at a time).
    pub fn around(&self, console: Box<dyn Write>, line_buffered: bool) -> Box<dyn Write> {
        Box::new(Suspending { bar: self.bar.clone(), inner: console, line_buffered })
    }

    /// Redraws the line if it is time to.
    pub fn update<S: EventSink>(&mut self, machine: &Machine<S>) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        if self.bar.is_hidden() {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.next = now + REDRAW_EVERY;
        let instructions = machine.hart.steps;
        let seconds = now.duration_since(self.start).as_secs_f64();
        let mips = instructions as f64 / seconds / 1e6;
        let at = machine.symbols.describe(machine.hart.pc);
        self.bar.set_message(format!(
            "{instructions} instructions, {} cycles, {mips:.0} MIPS, in {at} (Ctrl-C stops and reports)",
            machine.hart.now
        ));
        self.bar.tick();
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A writer that takes the progress line off the terminal while it writes.
struct Suspending {
    bar: ProgressBar,
    inner: Box<dyn Write>,
    line_buffered: bool,
}

impl Write for Suspending {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let inner = &mut self.inner;
        if self.line_buffered && !buf.contains(&b'\n') {
            return inner.write(buf);
        }
        self.bar.suspend(|| inner.write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let inner = &mut self.inner;
        self.bar.suspend(|| inner.flush())
    }
}

//! The progress line of a long run on a terminal: instructions, simulated cycles, speed and
//! the function the firmware is in, on standard error, redrawn in place and cleared at the end.
//! (Host time is read only for this line, which is never part of a run's results.)
//!
//! The run loop hands over a snapshot between slices of instructions; a thread of its own
//! draws the line, so that it keeps turning while the simulation is inside one long step (a
//! CPU access that waits on a long accelerator command), and says how long that has been.
//! The firmware's console shares the terminal: the line is taken off before the console
//! writes, and drawn again only where the console left the cursor at the start of a line.

use crate::machine::Machine;
use mxpsim_models::events::EventSink;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A run shorter than this shows no line.
const QUIET_FOR: Duration = Duration::from_secs(2);
const REDRAW_EVERY: Duration = Duration::from_millis(250);
/// A snapshot older than this is said to be: the simulation is inside one long step.
const STALE_AFTER: Duration = Duration::from_secs(2);
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// Columns left free at the line's end: a terminal echoes a typed Ctrl-C (`^C`) after it,
/// which must not wrap to the next row (the line could then not be cleared).
const ECHO_ROOM: usize = 3;

/// What the run loop last said.
struct Snapshot {
    instructions: u64,
    cycles: u64,
    function: String,
    at: Instant,
}

/// The terminal as the line and the console share it.
struct Screen {
    term: Box<dyn Write + Send>,
    /// The terminal's width in columns, when known: asked at each draw (a window resized
    /// during the run must not wrap the line, which could then not be cleared).
    width: Box<dyn Fn() -> Option<usize> + Send>,
    start: Instant,
    snapshot: Option<Snapshot>,
    /// The line is on the terminal now.
    drawn: bool,
    /// The console left the cursor inside a line: nothing is drawn until it ends the line.
    mid_line: bool,
    /// Console bytes after its last newline wait in its line buffer (they reach the
    /// terminal with the next newline or flush).
    pending: bool,
    frame: usize,
    ended: bool,
}

impl Screen {
    fn clear(&mut self) {
        if std::mem::take(&mut self.drawn) {
            let _ = self.term.write_all(b"\r\x1b[2K").and_then(|()| self.term.flush());
        }
    }

    /// Draws the line, if it is time to and the cursor is at the start of a line.
    fn draw(&mut self, now: Instant) {
        let Some(s) = &self.snapshot else { return };
        if self.mid_line || now < self.start + QUIET_FOR {
            return;
        }
        let seconds = s.at.duration_since(self.start).as_secs_f64();
        let mips = s.instructions as f64 / seconds.max(1e-9) / 1e6;
        // Where the last snapshot found the hart, and how long ago when that is long: the
        // simulation is inside one long step (a CPU access waiting on a long accelerator
        // command), and the line still turns.
        let stale = now.duration_since(s.at);
        let at = match stale >= STALE_AFTER {
            true => format!("last seen {} s ago in {}", stale.as_secs(), s.function),
            false => format!("in {}", s.function),
        };
        let mut text = format!(
            "mxpsim: {} {} instructions, {} cycles, {mips:.0} MIPS, {at} (Ctrl-C stops and reports)",
            SPINNER[self.frame % SPINNER.len()],
            s.instructions,
            s.cycles,
        );
        if let Some(width) = (self.width)() {
            text = text.chars().take(width.saturating_sub(ECHO_ROOM)).collect();
        }
        self.frame += 1;
        let _ = write!(self.term, "\r\x1b[2K{text}").and_then(|()| self.term.flush());
        self.drawn = true;
    }
}

/// The shared screen and the drawing thread's wake-up.
struct Shared {
    screen: Mutex<Screen>,
    wake: Condvar,
}

impl Shared {
    fn screen(&self) -> MutexGuard<'_, Screen> {
        // A panic while drawing leaves nothing that a later draw cannot repair.
        self.screen.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

pub struct ProgressLine {
    shared: Arc<Shared>,
    next: Instant,
    drawer: Option<JoinHandle<()>>,
}

impl ProgressLine {
    /// A line that shows when standard error is a terminal (`None` otherwise).
    pub fn on_terminal() -> Option<ProgressLine> {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let width = || crossterm::terminal::size().ok().map(|(columns, _)| columns as usize);
        Some(ProgressLine::new(Box::new(std::io::stderr()), Box::new(width)))
    }

    fn new(term: Box<dyn Write + Send>, width: Box<dyn Fn() -> Option<usize> + Send>) -> ProgressLine {
        let start = Instant::now();
        let screen = Screen {
            term,
            width,
            start,
            snapshot: None,
            drawn: false,
            mid_line: false,
            pending: false,
            frame: 0,
            ended: false,
        };
        let shared = Arc::new(Shared { screen: Mutex::new(screen), wake: Condvar::new() });
        let drawer = {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let mut screen = shared.screen();
                while !screen.ended {
                    screen.draw(Instant::now());
                    screen = shared.wake.wait_timeout(screen, REDRAW_EVERY).map_or_else(|e| e.into_inner().0, |r| r.0);
                }
                screen.clear();
            })
        };
        ProgressLine { shared, next: start, drawer: Some(drawer) }
    }

    /// `console` (the firmware's output) made to take the line off the terminal before it
    /// writes there, so that the firmware's lines and the progress line do not mix. A
    /// `line_buffered` console reaches the terminal only with a newline (or a flush).
    pub fn around(&self, console: Box<dyn Write>, line_buffered: bool) -> Box<dyn Write> {
        Box::new(Suspending { shared: Arc::clone(&self.shared), inner: console, line_buffered })
    }

    /// Takes a new snapshot of the run, if it is time to.
    pub fn update<S: EventSink>(&mut self, machine: &Machine<S>) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next = now + REDRAW_EVERY;
        let function = machine.symbols.describe(machine.hart.pc).to_string();
        self.shared.screen().snapshot =
            Some(Snapshot { instructions: machine.hart.steps, cycles: machine.hart.now, function, at: now });
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.shared.screen().ended = true;
        self.shared.wake.notify_all();
        if let Some(drawer) = self.drawer.take() {
            let _ = drawer.join();
        }
    }
}

/// A writer that takes the progress line off the terminal while it writes.
struct Suspending {
    shared: Arc<Shared>,
    inner: Box<dyn Write>,
    line_buffered: bool,
}

impl Write for Suspending {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut screen = self.shared.screen();
        let last_newline = buf.iter().rposition(|&b| b == b'\n');
        if self.line_buffered && last_newline.is_none() {
            // Into the line buffer: the terminal does not change.
            screen.pending |= !buf.is_empty();
            return self.inner.write_all(buf).map(|()| buf.len());
        }
        screen.clear();
        self.inner.write_all(buf)?;
        let tail = last_newline.map_or(!buf.is_empty(), |i| i + 1 < buf.len());
        if self.line_buffered {
            // Through the last newline on the terminal; the rest waits in the buffer.
            screen.mid_line = false;
            screen.pending = tail;
        } else if !buf.is_empty() {
            screen.mid_line = tail;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut screen = self.shared.screen();
        if std::mem::take(&mut screen.pending) {
            screen.clear();
            screen.mid_line = true;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A terminal that keeps what it is sent.
    #[derive(Clone, Default)]
    struct Term(Arc<Mutex<Vec<u8>>>);

    impl Write for Term {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Term {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    /// A line whose quiet time is over and whose snapshot is `age` old, on a terminal
    /// `width` wide, with no thread drawing (the tests draw).
    fn screen(term: &Term, width: Option<usize>, age: Duration) -> Screen {
        let now = Instant::now();
        Screen {
            term: Box::new(term.clone()),
            width: Box::new(move || width),
            start: now - QUIET_FOR - age,
            snapshot: Some(Snapshot { instructions: 5, cycles: 9, function: "main".into(), at: now - age }),
            drawn: false,
            mid_line: false,
            pending: false,
            frame: 0,
            ended: false,
        }
    }

    fn console(screen: Screen, term: &Term, line_buffered: bool) -> (Arc<Shared>, Box<dyn Write>) {
        let shared = Arc::new(Shared { screen: Mutex::new(screen), wake: Condvar::new() });
        let inner: Box<dyn Write> = match line_buffered {
            true => Box::new(std::io::LineWriter::new(term.clone())),
            false => Box::new(term.clone()),
        };
        let writer = Suspending { shared: Arc::clone(&shared), inner, line_buffered };
        (shared, Box::new(writer))
    }

    #[test]
    fn the_line_is_taken_off_before_the_console_writes_and_not_drawn_mid_line() {
        for line_buffered in [false, true] {
            let term = Term::default();
            let (shared, mut out) = console(screen(&term, None, Duration::ZERO), &term, line_buffered);
            shared.screen().draw(Instant::now());
            assert!(term.text().contains("5 instructions, 9 cycles"), "{}", term.text());
            out.write_all(b"done\npartial").unwrap();
            out.flush().unwrap();
            // Cleared first, then the console; the cursor is after "partial": no line there.
            assert!(term.text().ends_with("\r\x1b[2Kdone\npartial"), "{:?}", term.text());
            shared.screen().draw(Instant::now());
            assert!(term.text().ends_with("partial"), "{:?}", term.text());
            // Once the console ends its line, the progress line comes back.
            out.write_all(b"\n").unwrap();
            shared.screen().draw(Instant::now());
            assert!(term.text().ends_with("(Ctrl-C stops and reports)"), "{:?}", term.text());
        }
    }

    #[test]
    fn a_long_step_is_said_and_the_line_leaves_room_for_an_echoed_ctrl_c() {
        let term = Term::default();
        let mut s = screen(&term, Some(40), Duration::from_secs(5));
        s.draw(Instant::now());
        let drawn = term.text();
        let line = drawn.trim_start_matches("\r\x1b[2K");
        assert_eq!(line.chars().count(), 40 - ECHO_ROOM, "{line:?}");
        let mut wide = screen(&term, None, Duration::from_secs(5));
        wide.draw(Instant::now());
        assert!(term.text().contains("MIPS, last seen 5 s ago in main ("), "{:?}", term.text());
    }

    #[test]
    fn a_short_run_shows_nothing_and_the_end_clears_the_line() {
        let term = Term::default();
        let line = ProgressLine::new(Box::new(term.clone()), Box::new(|| None));
        drop(line);
        assert_eq!(term.text(), "", "quiet for the first {QUIET_FOR:?}");
        let term = Term::default();
        let line = ProgressLine::new(Box::new(term.clone()), Box::new(|| None));
        {
            let mut s = line.shared.screen();
            s.start -= QUIET_FOR;
            s.snapshot = Some(Snapshot { instructions: 1, cycles: 1, function: "f".into(), at: Instant::now() });
            s.draw(Instant::now());
        }
        drop(line);
        assert!(term.text().ends_with("\r\x1b[2K"), "{:?}", term.text());
    }
}

//! Event traces: `--record-trace FILE` writes the memory-interface event stream exactly as
//! the race detector receives it, so the detector can run later on the file.
//!
//! # Format (version 6)
//!
//! * 8 bytes: the magic `MXPTRACE`;
//! * one frame: the [`Header`] (format version, cache geometry, the machine's memory and
//!   scratchpad size: `detect` refuses events outside them; the firmware's fingerprint:
//!   `detect --elf` warns of another file);
//! * one [`Frame`] per event ([`mxpsim_detector::event::Event`]), in stream order;
//! * then one [`Frame`] per heap event ([`HeapEvent`]: the firmware's allocator calls, for
//!   naming bytes in reports; they carry their cycle, so they come last);
//! * then one [`Frame::Calls`]: the call-context tree the events' `ctx` fields name, as
//!   (parent, call site, sp at the call) per context id;
//! * last, one [`Frame::Trailer`]: how many frames came before it (after the header), the
//!   CRC-32 of their bytes, and how the run ended. A trace without a valid trailer was cut
//!   short (the recording was killed) or damaged; the reader says which, and how far the
//!   intact part goes.
//!
//! A frame is the value encoded with [postcard](https://docs.rs/postcard) (varint integers,
//! enum variants as varint indices, fields in declaration order), COBS-encoded and terminated
//! by a zero byte. A cached access takes about 22 bytes.

use crate::exit_code::RunEnd;
use crate::heap::HeapEvent;
use crate::machine::RunNotes;
use crate::race_check::RaceCheck;
use mxpsim_detector::event::{Access, CacheGeometry, Event, Origin, Pos, Range, Space};
use mxpsim_models::events::EventSink;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{self, BufRead, Read, Write};

const MAGIC: &[u8; 8] = b"MXPTRACE";
const VERSION: u16 = 6;

/// What follows the header.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum Frame {
    Event(Event),
    Heap(HeapEvent),
    Calls(Vec<(u32, u32, u32)>),
    /// The last frame; the reader yields it only once it has checked it.
    Trailer(Trailer),
}

/// What closes a trace: the check of everything before it, and the run's end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trailer {
    /// Frames after the header and before the trailer.
    pub frames: u64,
    /// CRC-32 (IEEE) of those frames' bytes, as written.
    pub crc32: u32,
    /// The JSON report's `outcome` object, as text (the type's JSON form is tagged, which
    /// postcard cannot read back).
    pub end: String,
}

/// [`Frame`] borrowed, for writing without a copy (same encoding).
#[derive(Serialize)]
enum FrameRef<'a> {
    Event(&'a Event),
    Heap(&'a HeapEvent),
    Calls(Vec<(u32, u32, u32)>),
    Trailer(Trailer),
}

/// The frames read or written so far, for the trailer.
#[derive(Default)]
struct Tally {
    frames: u64,
    crc: crc32fast::Hasher,
}

impl Tally {
    fn add(&mut self, frame: &[u8]) {
        self.frames += 1;
        self.crc.update(frame);
    }

    fn crc32(&self) -> u32 {
        self.crc.clone().finalize()
    }
}

/// What the reader needs before the events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// First, so that any version's header says its version.
    pub version: u16,
    pub geometry: CacheGeometry,
    /// The recorded machine's memory (physical DRAM and memory regions), sorted, adjacent
    /// ranges merged.
    pub memory: Vec<Range>,
    pub scratchpad_size: u32,
    /// The recorded firmware's [`crate::elf::Image::fingerprint`].
    pub firmware: u32,
}

impl Header {
    /// The header of a trace of a machine with `memory` (physical ranges, any order) running
    /// the firmware whose fingerprint is `firmware`.
    pub fn new(geometry: CacheGeometry, mut memory: Vec<Range>, scratchpad_size: u32, firmware: u32) -> Header {
        memory.sort();
        let mut merged: Vec<Range> = Vec::with_capacity(memory.len());
        for r in memory {
            match merged.last_mut() {
                Some(last) if last.end() == u64::from(r.start) && last.end() + u64::from(r.len) <= 1 << 32 => {
                    last.len += r.len
                }
                _ => merged.push(r),
            }
        }
        Header { version: VERSION, geometry, memory: merged, scratchpad_size, firmware }
    }

    /// Whether the recorded machine could have produced `event`: its bytes lie in its memory
    /// and scratchpad (a damaged or crafted trace may name gigabytes the detector would then
    /// track line by line).
    pub fn admits(&self, event: &Event) -> Result<(), String> {
        let in_memory =
            |r: &Range| r.is_empty() || self.memory.iter().any(|m| m.start <= r.start && r.end() <= m.end());
        let in_scratchpad = |r: &Range| r.end() <= u64::from(self.scratchpad_size);
        let (memory, scratchpad): (&[Range], &[Range]) = match event {
            Event::Cached { range, .. } | Event::CpuAccess { space: Space::Dram, range, .. } => {
                (std::slice::from_ref(range), &[])
            }
            Event::CpuAccess { space: Space::Scratchpad, range, .. } => (&[], std::slice::from_ref(range)),
            Event::Dma { host, scratchpad, .. } => (host, scratchpad),
            Event::Vector { reads, writes, .. } => {
                return match reads.iter().chain(writes).find(|r| !in_scratchpad(r)) {
                    Some(r) => Err(format!("a vector instruction's bytes {r} lie outside the scratchpad")),
                    None => Ok(()),
                };
            }
            Event::CacheMaintenance { .. } | Event::Request { .. } | Event::Sync { .. } => (&[], &[]),
        };
        if let Some(r) = memory.iter().find(|r| !in_memory(r)) {
            return Err(format!("bytes {r} lie outside the recorded machine's memory"));
        }
        match scratchpad.iter().find(|r| !in_scratchpad(r)) {
            Some(r) => Err(format!("scratchpad bytes {r} lie outside the scratchpad")),
            None => Ok(()),
        }
    }
}

/// Writes a trace; an [`EventSink`], so the machine feeds it directly.
pub struct TraceWriter<W: Write> {
    out: W,
    /// The first write error, reported when the trace is finished.
    error: Option<io::Error>,
    /// CPU nodes written (the sink's [`EventSink::position`] when no detector runs beside it).
    cpu_nodes: Pos,
    tally: Tally,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(mut out: W, header: &Header) -> io::Result<Self> {
        out.write_all(MAGIC)?;
        let header = postcard::to_stdvec_cobs(header).expect("plain data");
        out.write_all(&header)?;
        Ok(TraceWriter { out, error: None, cpu_nodes: 0, tally: Tally::default() })
    }

    /// Appends the run's heap events, call contexts and end, and flushes the trace; returns
    /// the first error seen while writing it.
    pub fn finish(mut self, notes: &RunNotes, end: &RunEnd) -> io::Result<()> {
        for event in &notes.heap {
            self.write(&FrameRef::Heap(event));
        }
        self.write(&FrameRef::Calls(notes.calls.nodes().collect()));
        let (frames, crc32) = (self.tally.frames, self.tally.crc32());
        let end = serde_json::to_string(end).expect("plain data");
        self.write(&FrameRef::Trailer(Trailer { frames, crc32, end }));
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

impl<W: Write> TraceWriter<W> {
    fn write(&mut self, frame: &FrameRef) {
        if self.error.is_some() {
            return;
        }
        let bytes = postcard::to_stdvec_cobs(frame).expect("frames are plain data");
        self.tally.add(&bytes);
        if let Err(e) = self.out.write_all(&bytes) {
            self.error = Some(e);
        }
    }
}

impl<W: Write> EventSink for TraceWriter<W> {
    fn emit(&mut self, event: Event) {
        self.cpu_nodes += u64::from(event.is_cpu_node());
        self.write(&FrameRef::Event(&event));
    }
    fn position(&self) -> Pos {
        self.cpu_nodes
    }
}

/// The sink of a run that records its event trace (`--record-trace`), with the race checker
/// fed the same stream or without it: one type for both, so that the simulator is compiled
/// once for them (its generic code is most of the crate's build time; a recorded run is not
/// one whose speed counts, so the checker's presence is looked at per event).
pub struct Recording<W: Write> {
    pub trace: TraceWriter<W>,
    pub race: Option<RaceCheck>,
}

impl<W: Write> EventSink for Recording<W> {
    fn emit(&mut self, event: Event) {
        if let Some(race) = &mut self.race {
            race.emit(event.clone());
        }
        self.trace.emit(event);
    }
    fn cached(&mut self, access: Access, range: Range, origin: Origin) {
        if let Some(race) = &mut self.race {
            race.cached(access, range, origin);
        }
        self.trace.cached(access, range, origin);
    }
    /// The checker's, when it runs (its detector numbers the nodes); the trace's counts the
    /// same nodes.
    fn position(&self) -> Pos {
        self.race.as_ref().map_or_else(|| self.trace.position(), |race| race.position())
    }
    fn wants_halt(&self) -> bool {
        self.race.as_ref().is_some_and(|race| race.wants_halt())
    }
}

/// Why a trace cannot be read.
#[derive(Debug)]
pub enum TraceError {
    Io(io::Error),
    NotATrace,
    UnsupportedVersion(u16),
    /// A frame that does not decode, numbered from 0 (the header).
    Corrupt {
        frame: u64,
    },
    /// The trailer does not match the frames before it (`frames` of them were read).
    Damaged {
        frames: u64,
    },
    /// The trace ends after `frames` frames, before its trailer: the recording was cut short.
    Cut {
        frames: u64,
    },
    /// Bytes after the trailer (`frames` intact frames before it).
    TrailingBytes {
        frames: u64,
    },
}

impl TraceError {
    /// Frames read intact before the problem, when a part of the trace can be analysed (not
    /// after a checksum mismatch: the damage may be anywhere before the trailer).
    pub fn intact_frames(&self) -> Option<u64> {
        match *self {
            TraceError::Corrupt { frame } => Some(frame.saturating_sub(1)),
            TraceError::Cut { frames } | TraceError::TrailingBytes { frames } => Some(frames),
            TraceError::Io(_)
            | TraceError::NotATrace
            | TraceError::UnsupportedVersion(_)
            | TraceError::Damaged { .. } => None,
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io(e) => write!(f, "{e}"),
            TraceError::NotATrace => write!(f, "not an mxpsim event trace (no MXPTRACE magic)"),
            TraceError::UnsupportedVersion(v) => {
                write!(f, "trace format version {v}; this mxpsim reads version {VERSION} (record the trace again)")
            }
            TraceError::Corrupt { frame } => write!(f, "damaged trace: frame {frame} does not decode"),
            TraceError::Damaged { frames } => {
                // (Said here, not only under --partial: it is why --partial does not help.)
                write!(
                    f,
                    "damaged trace: its trailer does not match the {frames} frames before it (count or checksum); \
                     the damage may be anywhere before it, so no part can be analysed, not even with --partial"
                )
            }
            TraceError::Cut { frames } => {
                write!(f, "the recording was cut short: the trace ends after {frames} frames, before its trailer")
            }
            TraceError::TrailingBytes { .. } => write!(f, "damaged trace: bytes after its trailer"),
        }
    }
}

/// Reads a trace: the header, then the events one by one.
pub struct TraceReader<R: BufRead> {
    input: R,
    pub header: Header,
    tally: Tally,
    buf: Vec<u8>,
    /// The trailer was read (or an error was returned): the iteration is over.
    done: bool,
}

impl<R: BufRead> TraceReader<R> {
    pub fn new(mut input: R) -> Result<Self, TraceError> {
        let mut magic = Vec::with_capacity(MAGIC.len());
        (&mut input).take(MAGIC.len() as u64).read_to_end(&mut magic).map_err(TraceError::Io)?;
        if magic != MAGIC {
            // A recording killed before it wrote its header leaves a prefix of it.
            let cut = magic.len() < MAGIC.len() && MAGIC.starts_with(&magic);
            return Err(if cut { TraceError::Cut { frames: 0 } } else { TraceError::NotATrace });
        }
        let mut buf = Vec::new();
        if !read_frame_bytes(&mut input, &mut buf)? {
            return Err(TraceError::Cut { frames: 0 });
        }
        // The version comes first, so an older header (other fields) still says its version.
        let version: u16 =
            postcard::take_from_bytes_cobs(&mut buf.clone()).map_err(|_| TraceError::Corrupt { frame: 0 })?.0;
        if version != VERSION {
            return Err(TraceError::UnsupportedVersion(version));
        }
        let header: Header = postcard::from_bytes_cobs(&mut buf).map_err(|_| TraceError::Corrupt { frame: 0 })?;
        Ok(TraceReader { input, header, tally: Tally::default(), buf, done: false })
    }

    /// The next frame, checked when it is the trailer; `None` after the trailer.
    fn read(&mut self) -> Result<Option<Frame>, TraceError> {
        if !read_frame_bytes(&mut self.input, &mut self.buf)? {
            return Err(TraceError::Cut { frames: self.tally.frames });
        }
        let raw = self.buf.clone();
        let frame = postcard::from_bytes_cobs(&mut self.buf)
            .map_err(|_| TraceError::Corrupt { frame: self.tally.frames + 1 })?;
        let Frame::Trailer(trailer) = &frame else {
            self.tally.add(&raw);
            return Ok(Some(frame));
        };
        if trailer.frames != self.tally.frames || trailer.crc32 != self.tally.crc32() {
            return Err(TraceError::Damaged { frames: self.tally.frames });
        }
        let mut rest = [0u8; 1];
        if self.input.read(&mut rest).map_err(TraceError::Io)? != 0 {
            return Err(TraceError::TrailingBytes { frames: self.tally.frames });
        }
        Ok(Some(frame))
    }
}

/// The longest frame read: a damaged file without zero bytes must not be read whole.
const MAX_FRAME: u64 = 1 << 30;

/// Reads one frame's bytes, its terminating zero included, into `buf`: false at the end of
/// the file or when the file ends inside the frame (it was cut there).
fn read_frame_bytes<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> Result<bool, TraceError> {
    buf.clear();
    let n = input.take(MAX_FRAME).read_until(0, buf).map_err(TraceError::Io)?;
    if n as u64 == MAX_FRAME && buf.last() != Some(&0) {
        return Err(TraceError::Corrupt { frame: 0 });
    }
    Ok(n > 0 && buf.last() == Some(&0))
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Frame, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.read().transpose();
        self.done = !matches!(item, Some(Ok(Frame::Event(_) | Frame::Heap(_) | Frame::Calls(_))));
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::HeapChange;
    use mxpsim_detector::event::{Access, DmaDir, Origin, Range, Request, Scope, Space, WriteBack};

    fn geometry() -> CacheGeometry {
        CacheGeometry { line_size: 32, write_back: WriteBack::DirtyBytes }
    }

    fn header() -> Header {
        Header::new(geometry(), vec![Range::new(0x8000_0000, 0x10_0000)], 0x1000, 0x1234_5678)
    }

    #[test]
    fn the_header_admits_only_events_inside_the_machine() {
        let h = Header::new(geometry(), vec![Range::new(0x2000, 0x1000), Range::new(0x1000, 0x1000)], 0x100, 0);
        assert_eq!(h.memory, vec![Range::new(0x1000, 0x2000)], "sorted and merged");
        let origin = Origin { pc: 0, cycle: 0, ctx: 0 };
        let cached = |start, len| Event::Cached { access: Access::Read, range: Range::new(start, len), origin };
        assert!(h.admits(&cached(0x1ffe, 4)).is_ok(), "across the merged boundary");
        assert!(h.admits(&cached(0x2ffe, 4)).is_err());
        let dma = |host: Range, sp: Range| Event::Dma {
            request: 1,
            dir: DmaDir::ToHost,
            host: vec![host],
            scratchpad: vec![sp],
            cycle: 0,
        };
        assert!(h.admits(&dma(Range::new(0x1000, 64), Range::new(0xc0, 64))).is_ok());
        // A crafted 4 GiB DMA (the detector would track 2^26 lines): refused.
        assert!(h.admits(&dma(Range::new(0, u32::MAX), Range::new(0, 64))).is_err());
        assert!(h.admits(&dma(Range::new(0x1000, 64), Range::new(0xd0, 64))).is_err());
    }

    fn events() -> Vec<Event> {
        let origin = Origin { pc: 0x8000_0124, cycle: 1_000_000_007, ctx: 0 };
        vec![
            Event::Cached { access: Access::Write, range: Range::new(0x8000_1000, 4), origin },
            Event::CpuAccess { space: Space::Scratchpad, access: Access::Read, range: Range::new(0x40, 2), origin },
            Event::CacheMaintenance { op: mxpsim_detector::event::CacheOp::Flush, scope: Scope::All, origin },
            Event::Request { request: Request::Dma(DmaDir::ToHost), origin },
            Event::Dma {
                request: 4,
                dir: DmaDir::ToHost,
                host: vec![Range::new(0x8000_2000, 64)],
                scratchpad: vec![Range::new(0, 64)],
                cycle: 9,
            },
            Event::Sync { origin },
        ]
    }

    #[test]
    fn traces_round_trip() {
        let heap = HeapEvent {
            function: "malloc".into(),
            call_site: 0x8000_0200,
            ctx: 0,
            cycle: 77,
            change: HeapChange::Alloc { start: 0x8040_0010, size: 64 },
        };
        let mut out = Vec::new();
        let mut w = TraceWriter::new(&mut out, &header()).unwrap();
        for e in events() {
            w.emit(e);
        }
        let end = RunEnd::Exited { status: 3 };
        w.finish(&RunNotes { heap: vec![heap.clone()], ..Default::default() }, &end).unwrap();
        let r = TraceReader::new(out.as_slice()).unwrap();
        assert_eq!(r.header, header());
        let mut expected: Vec<Frame> = events().into_iter().map(Frame::Event).collect();
        expected.push(Frame::Heap(heap));
        expected.push(Frame::Calls(vec![(0, 0, u32::MAX)]));
        let got = r.collect::<Result<Vec<_>, _>>().unwrap();
        assert_eq!(got[..expected.len()], expected);
        let Some(Frame::Trailer(trailer)) = got.last() else { panic!("no trailer: {got:?}") };
        assert_eq!((trailer.frames, trailer.end.as_str()), (8, r#"{"kind":"exited","status":3}"#));
        assert_eq!(got.len(), expected.len() + 1);
        // Compact: a cached access with a large PC, address and cycle is 22 bytes.
        let mut one = TraceWriter::new(Vec::new(), &header()).unwrap();
        let before = one.out.len();
        one.emit(events().remove(0));
        assert_eq!(one.out.len() - before, 22);
    }

    /// A finished trace of the test events.
    fn recorded() -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = TraceWriter::new(&mut out, &header()).unwrap();
        events().into_iter().for_each(|e| w.emit(e));
        w.finish(&RunNotes::default(), &RunEnd::Exited { status: 0 }).unwrap();
        out
    }

    /// Reads every frame; the error that ended the reading, if any, and the frames before it.
    fn read_all(bytes: &[u8]) -> (Vec<Frame>, Option<TraceError>) {
        let mut frames = Vec::new();
        for frame in TraceReader::new(bytes).unwrap() {
            match frame {
                Ok(f) => frames.push(f),
                Err(e) => return (frames, Some(e)),
            }
        }
        (frames, None)
    }

    #[test]
    fn a_trace_cut_anywhere_says_it_was_cut_and_how_far_it_got() {
        let full = recorded();
        let (frames, error) = read_all(&full);
        assert!(error.is_none() && matches!(frames.last(), Some(Frame::Trailer(_))));
        let header_len = full.iter().skip(8).position(|&b| b == 0).unwrap() + 9;
        for cut in header_len..full.len() {
            let (frames, error) = read_all(&full[..cut]);
            // Wherever it is cut (inside a frame too), the frames before are intact.
            match error {
                Some(TraceError::Cut { frames: n }) => assert_eq!(n as usize, frames.len(), "cut at {cut}"),
                other => panic!("cut at {cut} of {}: {other:?}", full.len()),
            }
        }
    }

    #[test]
    fn a_frame_damaged_so_that_it_still_decodes_fails_the_checksum() {
        let mut damaged = recorded();
        // The first event's address (after magic, header and the event's tag bytes): a flip
        // there still decodes, as another address.
        let header_len = damaged.iter().skip(8).position(|&b| b == 0).unwrap() + 9;
        damaged[header_len + 4] ^= 0x01;
        let (_, error) = read_all(&damaged);
        assert!(matches!(error, Some(TraceError::Damaged { .. } | TraceError::Corrupt { .. })), "{error:?}");
        let mut extended = recorded();
        extended.push(7);
        assert!(matches!(read_all(&extended).1, Some(TraceError::TrailingBytes { .. })));
    }

    #[test]
    fn a_recording_killed_before_its_header_was_written_was_cut() {
        let full = recorded();
        let header_end = full.iter().skip(8).position(|&b| b == 0).unwrap() + 9;
        for cut in 0..header_end {
            let e = TraceReader::new(&full[..cut]).err().unwrap();
            assert!(matches!(e, TraceError::Cut { frames: 0 }), "cut at {cut}: {e:?}");
        }
    }

    #[test]
    fn an_older_format_is_refused_by_its_version() {
        let mut old = MAGIC.to_vec();
        // Version 4's header: the version, then the geometry.
        old.extend(postcard::to_stdvec_cobs(&(4u16, geometry())).unwrap());
        let e = TraceReader::new(old.as_slice()).err().unwrap();
        assert!(matches!(e, TraceError::UnsupportedVersion(4)));
        assert!(e.to_string().contains("record the trace again"));
    }

    #[test]
    fn foreign_and_damaged_files_are_refused() {
        assert!(matches!(TraceReader::new(&b"ELF\x7f...."[..]), Err(TraceError::NotATrace)));
        let w = TraceWriter::new(Vec::new(), &header()).unwrap();
        let mut bytes = w.out;
        // A frame holding frame variant 127, which does not exist.
        bytes.extend(postcard::to_stdvec_cobs(&127u8).unwrap());
        let mut r = TraceReader::new(bytes.as_slice()).unwrap();
        assert!(matches!(r.next(), Some(Err(TraceError::Corrupt { frame: 1 }))));
    }
}

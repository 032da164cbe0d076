//! Event traces: `--record-trace FILE` writes the memory-interface event stream exactly as
//! the race detector receives it, so the detector can run later on the file.
//!
//! # Format (version 4)
//!
//! * 8 bytes: the magic `MXPTRACE`;
//! * one frame: the [`Header`] (format version, cache geometry);
//! * one [`Frame`] per event ([`mxpsim_detector::event::Event`]), in stream order;
//! * then one [`Frame`] per heap event ([`HeapEvent`]: the firmware's allocator calls, for
//!   naming bytes in reports; they carry their cycle, so they come last);
//! * then one [`Frame::Calls`]: the call-context tree the events' `ctx` fields name, as
//!   (parent, call site, sp at the call) per context id;
//! * last, one [`Frame::End`]: how the run ended (a trace without it is incomplete).
//!
//! A frame is the value encoded with [postcard](https://docs.rs/postcard) (varint integers,
//! enum variants as varint indices, fields in declaration order), COBS-encoded and terminated
//! by a zero byte. A cached access takes about 22 bytes.

use crate::exit_code::RunEnd;
use crate::heap::HeapEvent;
use crate::machine::RunNotes;
use mxpsim_detector::event::{CacheGeometry, Event, Pos};
use mxpsim_models::events::EventSink;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{self, BufRead, Write};

const MAGIC: &[u8; 8] = b"MXPTRACE";
const VERSION: u16 = 4;

/// What follows the header.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum Frame {
    Event(Event),
    Heap(HeapEvent),
    Calls(Vec<(u32, u32, u32)>),
    /// The JSON report's `outcome` object, as text (the type's JSON form is tagged, which
    /// postcard cannot read back).
    End(String),
}

/// [`Frame`] borrowed, for writing without a copy (same encoding).
#[derive(Serialize)]
enum FrameRef<'a> {
    Event(&'a Event),
    Heap(&'a HeapEvent),
    Calls(Vec<(u32, u32, u32)>),
    End(String),
}

/// What the reader needs before the events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub version: u16,
    pub geometry: CacheGeometry,
}

/// Writes a trace; an [`EventSink`], so the machine feeds it directly.
pub struct TraceWriter<W: Write> {
    out: W,
    /// The first write error, reported when the trace is finished.
    error: Option<io::Error>,
    /// CPU nodes written (the sink's [`EventSink::position`] when no detector runs beside it).
    cpu_nodes: Pos,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(mut out: W, geometry: CacheGeometry) -> io::Result<Self> {
        out.write_all(MAGIC)?;
        let header = postcard::to_stdvec_cobs(&Header { version: VERSION, geometry }).expect("plain data");
        out.write_all(&header)?;
        Ok(TraceWriter { out, error: None, cpu_nodes: 0 })
    }

    /// Appends the run's heap events, call contexts and end, and flushes the trace; returns
    /// the first error seen while writing it.
    pub fn finish(mut self, notes: &RunNotes, end: &RunEnd) -> io::Result<()> {
        for event in &notes.heap {
            self.write(&FrameRef::Heap(event));
        }
        self.write(&FrameRef::Calls(notes.calls.nodes().collect()));
        self.write(&FrameRef::End(serde_json::to_string(end).expect("plain data")));
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
    /// The trace ends before its end record: the recording was cut off.
    Truncated,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io(e) => write!(f, "{e}"),
            TraceError::NotATrace => write!(f, "not an mxpsim event trace (no MXPTRACE magic)"),
            TraceError::UnsupportedVersion(v) => {
                write!(f, "trace format version {v}; this mxpsim reads version {VERSION}")
            }
            TraceError::Corrupt { frame } => write!(f, "corrupt trace: frame {frame} does not decode"),
            TraceError::Truncated => write!(f, "incomplete trace: it ends before the record of how the run ended"),
        }
    }
}

/// Reads a trace: the header, then the events one by one.
pub struct TraceReader<R: BufRead> {
    input: R,
    pub header: Header,
    frame: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> TraceReader<R> {
    pub fn new(mut input: R) -> Result<Self, TraceError> {
        let mut magic = [0u8; 8];
        input.read_exact(&mut magic).map_err(|_| TraceError::NotATrace)?;
        if &magic != MAGIC {
            return Err(TraceError::NotATrace);
        }
        let mut buf = Vec::new();
        let header: Header = read_frame(&mut input, &mut buf, 0)?.ok_or(TraceError::Corrupt { frame: 0 })?;
        if header.version != VERSION {
            return Err(TraceError::UnsupportedVersion(header.version));
        }
        Ok(TraceReader { input, header, frame: 0, buf })
    }
}

fn read_frame<R: BufRead, T: for<'de> Deserialize<'de>>(
    input: &mut R,
    buf: &mut Vec<u8>,
    frame: u64,
) -> Result<Option<T>, TraceError> {
    buf.clear();
    if input.read_until(0, buf).map_err(TraceError::Io)? == 0 {
        return Ok(None);
    }
    postcard::from_bytes_cobs(buf).map(Some).map_err(|_| TraceError::Corrupt { frame })
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Frame, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.frame += 1;
        read_frame(&mut self.input, &mut self.buf, self.frame).transpose()
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
        let mut w = TraceWriter::new(&mut out, geometry()).unwrap();
        for e in events() {
            w.emit(e);
        }
        let end = RunEnd::Exited { status: 3 };
        w.finish(&RunNotes { heap: vec![heap.clone()], calls: Default::default() }, &end).unwrap();
        let r = TraceReader::new(out.as_slice()).unwrap();
        assert_eq!(r.header, Header { version: VERSION, geometry: geometry() });
        let mut expected: Vec<Frame> = events().into_iter().map(Frame::Event).collect();
        expected.push(Frame::Heap(heap));
        expected.push(Frame::Calls(vec![(0, 0, u32::MAX)]));
        expected.push(Frame::End(r#"{"kind":"exited","status":3}"#.into()));
        assert_eq!(r.collect::<Result<Vec<_>, _>>().unwrap(), expected);
        // Compact: a cached access with a large PC, address and cycle is 22 bytes.
        let mut one = TraceWriter::new(Vec::new(), geometry()).unwrap();
        let before = one.out.len();
        one.emit(events().remove(0));
        assert_eq!(one.out.len() - before, 22);
    }

    #[test]
    fn foreign_and_damaged_files_are_refused() {
        assert!(matches!(TraceReader::new(&b"ELF\x7f...."[..]), Err(TraceError::NotATrace)));
        let w = TraceWriter::new(Vec::new(), geometry()).unwrap();
        let mut bytes = w.out;
        // A frame holding frame variant 127, which does not exist.
        bytes.extend(postcard::to_stdvec_cobs(&127u8).unwrap());
        let mut r = TraceReader::new(bytes.as_slice()).unwrap();
        assert!(matches!(r.next(), Some(Err(TraceError::Corrupt { frame: 1 }))));
    }
}

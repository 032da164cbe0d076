//! The memory system through the command line: statistics against hand-computed counts,
//! cycle counts that respond to the cache and the bus as they must, the race mechanism
//! observed in data under both write-back granularities, configuration handling, and
//! byte-identical repeat runs.

use serde_json::Value;

mod common;
use common::{firmware, mxpsim, temp};

/// Runs `mxpsim run --stats-json` with extra arguments and returns the statistics.
fn stats(program: &str, extra: &[&str]) -> Value {
    let json = temp(&format!("{program}-{}.json", extra.join("_").replace(['/', '='], "-")));
    let mut args = vec!["run", "--stats-json", &json];
    args.extend_from_slice(extra);
    let elf = firmware(program);
    args.push(&elf);
    let o = mxpsim(&args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

fn cycles(program: &str, extra: &[&str]) -> u64 {
    stats(program, extra)["cycles"].as_u64().unwrap()
}

#[test]
fn statistics_match_hand_computed_counts() {
    // firmware/tests/cache_stats.S, default cache (32-byte lines, write-allocate):
    // loads: miss, hit, miss; stores: hit, miss (allocates), the tohost store (miss), and
    // tohost's high word (hit: the run ends once both halves are written, models/src/htif.rs);
    // one cbo.flush writing back line 0. Four line fills of 32 bytes.
    let s = stats("cache_stats", &[]);
    let c = &s["cache"];
    let count = |k: &str| c[k].as_u64().unwrap();
    assert_eq!(s["instructions"], 15);
    assert_eq!((count("read_accesses"), count("read_misses")), (3, 2));
    assert_eq!((count("write_accesses"), count("write_misses")), (4, 2));
    assert_eq!((count("writebacks"), count("evictions"), count("flushes")), (1, 0, 1));
    assert_eq!((count("bytes_read"), count("bytes_written")), (128, 32));
    // 15 instructions at one cycle, two jumps (+2 each) into tohost.h's `pass`, and four
    // fills of 20 cycles latency + 8 beats; the flush's write-back (8 beats) has left the
    // data channel before the last fill.
    assert_eq!(s["cycles"], 15 + 2 * 2 + 4 * 28);
}

#[test]
fn write_through_statistics() {
    let s = stats("cache_stats", &["--cache", "write=through"]);
    let c = &s["cache"];
    // Write misses do not allocate: only the two read misses fill lines (so both halves of
    // tohost miss); every store's bytes go to memory, and nothing is ever dirty.
    assert_eq!((c["write_misses"].as_u64(), c["bytes_read"].as_u64()), (Some(3), Some(64)));
    assert_eq!((c["writebacks"].as_u64(), c["bytes_written"].as_u64()), (Some(0), Some(16)));
}

#[test]
fn cycles_respond_to_cache_size_and_memory_latency() {
    // memwalk's 48 KiB array thrashes the default 16 KiB cache and fits in 64 KiB.
    let base = cycles("memwalk", &[]);
    let big = cycles("memwalk", &["--cache", "size=64K"]);
    let ideal = cycles("memwalk", &["--cache", "off"]);
    assert!(base > big && big > ideal, "16K {base}, 64K {big}, ideal memory {ideal}");
    let slow = temp("slow.toml");
    std::fs::write(&slow, "[axi]\nread_latency = 80\nwrite_latency = 80\n").unwrap();
    let slower = cycles("memwalk", &["--config", &slow]);
    assert!(slower > base, "latency 80: {slower}, latency 20: {base}");
}

#[test]
fn the_race_mechanism_depends_on_the_write_back_granularity() {
    let run = |extra: &[&str]| {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        let elf = firmware("cache_coherence");
        args.push(&elf);
        String::from_utf8(mxpsim(&args).stdout).unwrap()
    };
    // Whole-line write-back: the stale copy of the DMA buffer overwrites it.
    assert!(run(&[]).contains("dma_buf after write-back:  00000000 .. 00000000"));
    // Byte-granular write-back writes only the variable: the buffer survives.
    assert!(run(&["--cache", "wb=byte"]).contains("dma_buf after write-back:  000000d0 .. 000000d5"));
}

#[test]
fn runs_with_the_cache_model_are_byte_identical() {
    let run = || {
        let trace = temp("memwalk.trace");
        let json = temp("memwalk.json");
        let o = mxpsim(&[
            "run",
            "--stats",
            "--stats-json",
            &json,
            "--trace",
            &trace,
            "--cache",
            "policy=random",
            &firmware("memwalk"),
        ]);
        (o.stdout, o.stderr, std::fs::read(&trace).unwrap(), std::fs::read(&json).unwrap())
    };
    assert!(run() == run());
}

#[test]
fn dumped_configuration_reproduces_the_run() {
    let dump = mxpsim(&["config", "--dump", "--cache", "size=8K,ways=2,policy=plru,wb=byte"]);
    assert!(dump.status.success());
    let file = temp("dumped.toml");
    std::fs::write(&file, &dump.stdout).unwrap();
    assert_eq!(
        stats("memwalk", &["--config", &file]),
        stats("memwalk", &["--cache", "size=8K,ways=2,policy=plru,wb=byte"])
    );
}

#[test]
fn invalid_configurations_name_the_field() {
    let cases: &[(&[&str], &str)] = &[
        (&["--cache", "line=48"], "cache.line"),
        (&["--cache", "size=1000"], "cache.size"),
        (&["--cache", "policy=mru"], "cache.policy"),
        (&["--cache", "ways=3,policy=plru,size=6K"], "cache.policy"),
        (&["--cache", "bogus=1"], "unknown key 'bogus'"),
    ];
    for (extra, field) in cases {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        let elf = firmware("hello");
        args.push(&elf);
        let o = mxpsim(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(110), "{args:?}: {err}");
        assert!(err.contains(field), "{args:?}: {err}");
    }
    let overlapping = temp("overlap.toml");
    std::fs::write(&overlapping, "[memory]\nsysctl = 0xc0000000\n").unwrap();
    let o = mxpsim(&["config", "--dump", "--config", &overlapping]);
    assert_eq!(o.status.code(), Some(110));
    assert!(String::from_utf8_lossy(&o.stderr).contains("memory.sysctl"));
    let typo = temp("typo.toml");
    std::fs::write(&typo, "[cache]\nlines = 64\n").unwrap();
    let o = mxpsim(&["config", "--dump", "--config", &typo]);
    assert_eq!(o.status.code(), Some(110));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown field `lines`"));
}

#[test]
fn recorded_trace_is_the_event_stream() {
    use mxpsim_detector::event::{Access, CacheGeometry, CacheOp, Event, Scope, Space, WriteBack};
    use mxpsim_sim::config::MachineConfig;
    use mxpsim_sim::event_trace::{Frame, TraceReader};
    use mxpsim_sim::machine::Machine;
    use mxpsim_sim::semihost::Semihost;

    let elf = firmware("cache_coherence");
    let file = temp("cache_coherence.trace");
    let o = mxpsim(&["run", "--record-trace", &file, &elf]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reader = TraceReader::new(std::io::BufReader::new(std::fs::File::open(&file).unwrap())).unwrap();
    assert_eq!(reader.header.geometry, CacheGeometry { line_size: 32, write_back: WriteBack::Line });
    let (mut recorded, mut heap, mut calls, mut end) = (Vec::new(), Vec::new(), None, None);
    for frame in reader {
        match frame.unwrap() {
            Frame::Event(e) => recorded.push(e),
            Frame::Heap(h) => heap.push(h),
            Frame::Calls(nodes) => calls = Some(nodes),
            Frame::Trailer(trailer) => end = Some(trailer.end),
        }
    }
    assert_eq!(end.as_deref(), Some(r#"{"kind":"exited","status":0}"#), "the file ends with how the run ended");

    // The same run in-process, collecting the events (and the heap blocks) in memory.
    let config = MachineConfig::default();
    let image = mxpsim_sim::elf::load(elf.as_ref()).unwrap();
    let cmdline = mxpsim_sim::semihost::command_line(std::path::Path::new(&elf), &[]).unwrap();
    let host = Semihost::new(Box::new(std::io::sink()), Box::new(std::io::sink()), cmdline, config.clock_hz);
    let mut machine = Machine::new(&config, image, host, Vec::new()).unwrap();
    machine.watch_heap();
    machine.run(&mut (), |_| {});
    let notes = machine.notes();
    assert_eq!(heap, notes.heap, "the file holds the heap events");
    assert_eq!(calls, Some(notes.calls.nodes().collect()), "the file holds the call contexts");
    assert!(
        recorded.iter().any(|e| matches!(e, Event::Cached { origin, .. } if origin.ctx != 0)),
        "events carry contexts"
    );
    assert!(recorded == machine.into_sink(), "the file holds exactly the event stream");

    // What cache_coherence.c does, seen in its events.
    let count = |f: &dyn Fn(&Event) -> bool| recorded.iter().filter(|e| f(e)).count();
    let maintenance = |want: CacheOp, all: bool| {
        count(
            &|e| matches!(e, Event::CacheMaintenance { op, scope, .. } if *op == want && matches!(scope, Scope::All) == all),
        )
    };
    assert_eq!((maintenance(CacheOp::Flush, false), maintenance(CacheOp::Clean, false)), (2, 1));
    assert_eq!((maintenance(CacheOp::Inval, false), maintenance(CacheOp::Flush, true)), (2, 1));
    let uncached =
        |want: Access| count(&|e| matches!(e, Event::CpuAccess { space: Space::Dram, access, .. } if *access == want));
    assert_eq!(uncached(Access::Write), 7, "u[3] and the six DMA-buffer words");
    assert!(uncached(Access::Read) >= 9);
    assert!(count(&|e| matches!(e, Event::Cached { .. })) > 1000, "picolibc's start-up and printf");
}

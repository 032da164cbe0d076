//! `--race-check` and `detect` through the command line, on firmware whose races are known:
//! `cache_coherence.c` mixes uncached and cached accesses to the same lines on purpose.

use rayon::prelude::*;
use std::path::PathBuf;

mod common;
use common::{elf, firmware, mxpsim, stderr, temp};

#[test]
fn cpu_only_firmware_has_no_cpu_accelerator_races() {
    let o = mxpsim(&["run", "--race-check", &firmware("cache_coherence")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("SUMMARY: mxpsim: 0 data races"), "{}", stderr(&o));
}

#[test]
fn uncached_versus_cache_races_are_reported_with_the_option() {
    let o = mxpsim(&["--race-check", "--race-uncached", &firmware("cache_coherence")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    // Four root causes (cache_coherence.c): step 1's uncached read of `buf` right after its
    // store, step 3's uncached store before the cached read, and step 5's uncached stores
    // (one loop: one finding) before the cached store of the tail, then the uncached read.
    assert!(err.contains("SUMMARY: mxpsim: 4 data races"), "{err}");
    let src = "firmware/tests/cache_coherence.c";
    let (stores, tail, read) = (
        source_line(src, "dma[i] = 0xd0 + i"),
        source_line(src, "tail[0] = 1;"),
        source_line(src, "(unsigned)dma[0], (unsigned)dma[5]);"),
    );
    assert!(err.contains(&format!("between main ({stores}) and main ({tail})")), "{err}");
    assert!(err.contains(&format!("between main ({read}) and main ({tail})")), "{err}");
    // The store of the tail wrote none of the DMA buffer's bytes: they share its line.
    assert!(
        err.contains(&format!(
            "the store in main ({tail}) is followed by main ({read}) with no clean or flush of line"
        )),
        "{err}"
    );
    assert!(err.contains("fix (align)") && err.contains("fix (invalidate)"), "{err}");
    // The program's output is untouched by the check.
    assert!(String::from_utf8_lossy(&o.stdout).contains("dma_buf after write-back"));
}

#[test]
fn json_reports_carry_the_same_races() {
    let file = temp("report.json");
    let o = mxpsim(&[
        "run",
        "--race-check",
        "--race-uncached",
        "--report-format",
        "json",
        "--report-file",
        &file,
        &firmware("cache_coherence"),
    ]);
    assert_eq!(o.status.code(), Some(66));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 4);
    let tail = source_line("firmware/tests/cache_coherence.c", "tail[0] = 1;");
    let last = &findings[3];
    assert_eq!(last["class"], "ur/wb");
    assert_eq!(last["objects"][0]["name"], "shared");
    let top = &last["b"]["top_user_frame"];
    assert_eq!(format!("{}:{}", top["file"].as_str().unwrap(), top["line"]), tail);
    assert_eq!(last["fix"]["kind"], "align");
    assert_eq!(last["facts"][1]["missing"], "flush");
    assert_eq!(findings[2]["class"], "uw/alloc");
    assert_eq!(v["stream_errors"], 0);
}

#[test]
fn offline_detection_of_a_recorded_trace_gives_the_same_report() {
    let (trace, online, offline) = (temp("cc.trace"), temp("online.txt"), temp("offline.txt"));
    let elf = firmware("cache_coherence");
    let run =
        mxpsim(&["run", "--race-check", "--race-uncached", "--record-trace", &trace, "--report-file", &online, &elf]);
    assert_eq!(run.status.code(), Some(66));
    let det = mxpsim(&["detect", &trace, "--elf", &elf, "--race-uncached", "--report-file", &offline]);
    assert_eq!(det.status.code(), Some(66), "{}", stderr(&det));
    assert_eq!(std::fs::read_to_string(online).unwrap(), std::fs::read_to_string(offline).unwrap());
    // A recording cut off at a frame boundary (here: before its trailer) is not complete.
    let bytes = std::fs::read(&trace).unwrap();
    let last_frame = bytes[..bytes.len() - 1].iter().rposition(|&b| b == 0).unwrap() + 1;
    let cut = temp("cc-cut.trace");
    std::fs::write(&cut, &bytes[..last_frame]).unwrap();
    let det = mxpsim(&["detect", &cut, "--elf", &elf, "--race-uncached"]);
    assert_eq!(det.status.code(), Some(108), "{}", stderr(&det));
    assert!(stderr(&det).contains("the recording was cut short"), "{}", stderr(&det));
    let not_a_trace = mxpsim(&["detect", &elf]);
    assert_eq!(not_a_trace.status.code(), Some(124));
    assert!(stderr(&not_a_trace).contains("not an mxpsim event trace"));

    // Heap blocks travel in the trace: the offline report names them too.
    let (trace, online, offline) = (temp("va.trace"), temp("va-online.txt"), temp("va-offline.txt"));
    let app = common::elf("apps", "vbw_vec_add_2021");
    let run = mxpsim(&[
        "run",
        "--race-check",
        "--cache",
        "line=64",
        "--record-trace",
        &trace,
        "--report-file",
        &online,
        &app,
    ]);
    assert_eq!(run.status.code(), Some(66), "{}", stderr(&run));
    let det = mxpsim(&["detect", &trace, "--elf", &app, "--report-file", &offline]);
    assert_eq!(det.status.code(), Some(66), "{}", stderr(&det));
    let online = std::fs::read_to_string(online).unwrap();
    assert!(online.contains("from vbx_shared_malloc at"), "{online}");
    assert_eq!(online, std::fs::read_to_string(offline).unwrap());
}

#[test]
fn halt_on_race_stops_at_the_first() {
    let o = mxpsim(&["run", "--race-check", "--race-uncached", "--halt-on-race", &firmware("cache_coherence")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("stopped at the first race"), "{err}");
    assert!(err.contains("SUMMARY: mxpsim: 1 data race in "), "{err}");
    assert!(err.contains(", 1 occurrence; the run stopped at the first race"), "{err}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("flush all"), "the run stopped early");
}

/// The accelerator test programs synchronise correctly: silent with the default 32-byte
/// lines and with 16-byte ones. (`vec_add` used to race at 32 bytes: its result buffer
/// shares a line with the heap block header that `free` reads, fetched any time after the
/// allocation's flush; `vbx_uncached_free` now flushes the block before returning it to the
/// heap.) With 64-byte lines the SDK's 16-byte padding is too small: in `interlocks` the next
/// block's header, written by `malloc` through the cache, shares a line with the tail of a
/// shared buffer that the DMA reads. A program that races on purpose says how many races in
/// its header (`expect-races: N`: `dma_poll` polls a DMA's destination before the sync).
#[test]
fn accelerator_programs_race_only_where_padding_and_line_size_disagree() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("firmware/bin/mxp-tests");
    let sources = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("firmware/mxp-tests");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    for name in names {
        let elf = elf("mxp-tests", &name);
        // The status the program's header expects: runaway_dma's 2^36-cycle DMA ends at the
        // cycle limit (10^8 cycles; every other program ends within 3 * 10^6), race-free so far.
        let source =
            ["c", "cpp"].iter().find_map(|ext| std::fs::read_to_string(sources.join(format!("{name}.{ext}"))).ok());
        let expected = source.as_deref().and_then(|s| s.lines().find_map(|l| l.split("expect-exit:").nth(1)));
        let expected: i32 = expected.map_or(0, |e| e.trim().parse().unwrap());
        let races = source.as_deref().and_then(|s| s.lines().find_map(|l| l.split("expect-races:").nth(1)));
        let races: u32 = races.map_or(0, |r| r.split_whitespace().next().unwrap().parse().unwrap());
        // (Races found: the race exit status; "1 data race in", "2 data races in".)
        let (status, summary) = match races {
            0 => (expected, "SUMMARY: mxpsim: 0 data races".to_string()),
            n => (66, format!("SUMMARY: mxpsim: {n} data race")),
        };
        for cache in ["line=32", "line=16"] {
            let o = mxpsim(&["--race-check", "--max-cycles", "100000000", "--cache", cache, &elf]);
            assert_eq!(o.status.code(), Some(status), "{name}, {cache}: {}", stderr(&o));
            assert!(stderr(&o).contains(&summary), "{name}, {cache}: {}", stderr(&o));
        }
    }
    let o = mxpsim(&["--race-check", "--cache", "line=64", &elf("mxp-tests", "interlocks")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("SUMMARY: mxpsim: 1 data race"), "{err}");
    assert!(err.contains("(wb/dma_r)") && err.contains("in malloc"), "{err}");
    assert!(err.contains("heap block") && err.contains("from vbx_shared_malloc at"), "{err}");
}

/// The race verdict with the cycle numbers and the event count taken out (they legitimately
/// change with timing, and the SDK flushes differently for a different cache size).
fn verdict(args: &[&str]) -> serde_json::Value {
    let file = temp(&format!("verdict-{}.json", args.join("_").replace(['/', '=', ','], "-")));
    let mut all = vec!["run", "--race-check", "--report-format", "json", "--report-file", &file];
    all.extend_from_slice(args);
    let o = mxpsim(&all);
    assert!(matches!(o.status.code(), Some(0 | 66)), "{args:?}: {}", stderr(&o));
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // The event count and the machine itself differ by design.
    v.as_object_mut().unwrap().remove("events");
    v.as_object_mut().unwrap().remove("machine");
    strip_cycles(&mut v);
    v
}

/// Removes every `cycle` field, at any depth.
fn strip_cycles(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.remove("cycle");
            map.values_mut().for_each(strip_cycles);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_cycles),
        _ => {}
    }
}

/// With the line size and write-back granularity fixed, the verdict does not depend on the
/// cache's size, associativity, replacement policy or any latency: the abstraction is
/// independent of them (race-semantics.md §4, "Invariance").
#[test]
fn verdicts_do_not_depend_on_cache_capacity_policy_or_timing() {
    let slow = temp("slow-bus.toml");
    std::fs::write(&slow, "[axi]\nread_latency = 97\nwrite_latency = 5\ndata_width = 8\nmax_burst = 4\n").unwrap();
    // (Not `--cache off`: the SDK reads the cache size and flushes differently without one.)
    let variants: [&[&str]; 5] = [
        &["--cache", "size=1K,ways=1"],
        &["--cache", "size=64K,ways=full,policy=random,seed=3"],
        &["--cache", "size=2K,ways=2,policy=fifo,hit=3,wbuf=1"],
        &["--cache", "size=8K,ways=8,policy=plru"],
        &["--config", &slow],
    ];
    let mut programs: Vec<String> =
        ["vec_add", "dma_1d", "interlocks", "dma_2d"].iter().map(|n| elf("mxp-tests", n)).collect();
    programs.push(firmware("cache_coherence"));
    // Findings and their occurrence counts, over loops, helpers, struct fields and the
    // scratchpad, must not move with the cache either.
    for name in [
        "alloc_dma_w_loop",
        "wb_dma_r_heap_unflushed",
        "helper_three_sites",
        "descriptor_cached",
        "unrolled_stores",
        "dma_r_vec_waw",
        "spw_vec",
        "false_sharing_pending",
    ] {
        programs.push(elf("race-tests", name));
    }
    for program in &programs {
        let base = verdict(&[program]);
        for variant in variants {
            let mut args = variant.to_vec();
            args.push(program);
            assert_eq!(verdict(&args), base, "{program} with {variant:?}");
        }
    }
}

/// `file:line` of the first line of a firmware source containing `text` (so the tests pin
/// the right source line without hard-coding line numbers).
fn source_line(source: &str, text: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(source);
    let n = std::fs::read_to_string(&path).unwrap().lines().position(|l| l.contains(text)).expect("text in source");
    format!("{source}:{}", n + 1)
}

/// The paper's first race, in the port of the SDK's `vbw_vec_add` (default layout, 64-byte
/// lines): the line holding the tail of the cached `scalar_out` also holds the head of the
/// shared `vector_in1`; the CPU dirties it (`malloc`'s zeroing of `scalar_out`'s block) and
/// nothing orders its write-back with the DMA that reads `vector_in1`. The report names both
/// heap blocks by the source lines that allocated them. The SDK's 16-byte padding hides it
/// from 16- and 32-byte lines.
#[test]
fn vbw_vec_add_has_the_papers_race_with_64_byte_lines() {
    let app = common::elf("apps", "vbw_vec_add_2021");
    let o = mxpsim(&["--race-check", "--cache", "line=64", &app]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("SUMMARY: mxpsim: 1 data race"), "{err}");
    assert!(err.contains("(wb/dma_r)"), "{err}");
    let source = "firmware/apps/vbw_vec_add.c";
    let vector_in1 = source_line(source, "*vector_in1 = vbx_shared_malloc");
    let scalar_out = source_line(source, "*scalar_out = malloc");
    let zeroing = source_line(source, "test_zero_array_byte(scalar_out");
    let dma = source_line(source, "vbx_dma_to_vector(v_in1");
    assert!(
        err.contains("bytes +0x0..+0x10 (65536 bytes from vbx_shared_malloc at") && err.contains(&vector_in1),
        "{err}"
    );
    assert!(err.contains(&format!("(65536 bytes from malloc at {scalar_out})")), "{err}");
    // The epoch's first store is the zeroing of scalar_out; the DMA is the user's call.
    assert!(err.contains(&format!("called from main ({zeroing})")), "{err}");
    assert!(
        err.contains("vbx_dma_to_vector_ (firmware/sdk/include/vbx.h:")
            && err.contains(&format!("called from main ({dma})")),
        "{err}"
    );
    assert!(err.contains("fix (align)"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("Test passed!"), "the race is latent in this run");
    for line in ["line=32", "line=16"] {
        let o = mxpsim(&["--race-check", "--cache", line, &app]);
        assert_eq!(o.status.code(), Some(0), "{line}: {}", stderr(&o));
    }
}

/// The paper's second race, in the port of `vbw_mtx_motest` (default layout, 64-byte lines):
/// the DMA writes the tail of the shared `vector_result`, whose line also holds the head of
/// the cached `scalar_x_input`, allocated and dirtied after it with no flush.
#[test]
fn vbw_mtx_motest_has_the_papers_race_with_64_byte_lines() {
    let app = elf("apps", "vbw_mtx_motest");
    let o = mxpsim(&["--race-check", "--cache", "line=64", &app]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("SUMMARY: mxpsim: 1 data race"), "{err}");
    assert!(err.contains("(wb/dma_w)"), "{err}");
    let source = "firmware/apps/vbw_mtx_motest.c";
    let vector_result = source_line(source, "*vector_result = vbx_shared_malloc");
    let scalar_x_input = source_line(source, "*scalar_x_input = malloc");
    assert!(err.contains("heap block") && err.contains("(16384 bytes from vbx_shared_malloc at"), "{err}");
    assert!(err.contains(&vector_result) && err.contains(&scalar_x_input), "{err}");
    let o = mxpsim(&["--race-check", "--cache", "line=16", &app]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Every injected bug (a removed sync or flush, a cached buffer where a shared one belongs:
/// `firmware/apps/bugs`, at least two per program) is reported with 16-byte lines, the
/// configuration under which the unmodified programs are silent (but for `vbw_vec_fft`, whose
/// original really races: `fft_forward_transforms_read_scratchpad_twiddles_unsynchronised`).
/// One race is enough here: `--halt-on-race`. A program's own races there are its row of the
/// verdict table (`tests/verdicts.expected`, which `tests/verdicts.rs` checks against a run of
/// every program in this very configuration): not run again here.
#[test]
fn injected_bugs_are_all_reported() {
    const CACHE: &str = "line=16,wb=line";
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let names = |dir: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(root.join("firmware/bin").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path().file_stem().unwrap().to_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let (apps, bugs) = (names("apps"), names("apps-bugs"));
    let table = std::fs::read_to_string(root.join("tests/verdicts.expected")).expect("the verdict table");
    // `program cache status races signature`, a row per program and configuration.
    let own_races = |app: &str| -> u64 {
        let row = table.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).find(|r| r[..2] == [app, CACHE]);
        row.unwrap_or_else(|| panic!("no {app} {CACHE} row in tests/verdicts.expected"))[3].parse().unwrap()
    };
    let distinct_races = |name: &str| -> u64 {
        let file = temp(&format!("bug-{name}.json"));
        let o = mxpsim(&[
            "run",
            "--race-check",
            "--cache",
            CACHE,
            "--report-format",
            "json",
            "--report-file",
            &file,
            &elf("apps-bugs", name),
        ]);
        assert!(matches!(o.status.code(), Some(0 | 66)), "{name}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        v["findings"].as_array().unwrap().len() as u64
    };
    // Every app and its variants are checked in parallel (each is a whole SDK program run).
    apps.par_iter().filter(|a| !a.ends_with("_2021")).for_each(|app| {
        // A bug belongs to the longest app name it starts with (vbw_mtx_median_argb32_… is
        // not vbw_mtx_median's).
        let owner =
            |bug: &str| apps.iter().filter(|a| bug.starts_with(&format!("{a}_"))).max_by_key(|a| a.len()).cloned();
        let variants: Vec<&String> = bugs.iter().filter(|b| owner(b).as_ref() == Some(app)).collect();
        assert!(variants.len() >= 2, "{app} has {} injected-bug variants", variants.len());
        let own = own_races(app);
        variants.par_iter().for_each(|bug| {
            if own == 0 {
                // One race is enough.
                let o = mxpsim(&["--race-check", "--halt-on-race", "--cache", CACHE, &elf("apps-bugs", bug)]);
                assert_eq!(o.status.code(), Some(66), "{bug}: {}", stderr(&o));
            } else {
                assert!(distinct_races(bug) > own, "{bug}: no race beyond {app}'s own {own}");
            }
        });
    });
}

/// The latent race of the shipped `vbw_vec_fft` (sdk-programs.md §2.10), kept in the port:
/// the forward transforms' DIT stages load each broadcast twiddle with a CPU read of the
/// scratchpad, with no sync after the DMA that brought the twiddles in and the vector
/// instructions that decimate them. Reported with any line size (no cache involved).
#[test]
fn fft_forward_transforms_read_scratchpad_twiddles_unsynchronised() {
    let o = mxpsim(&["--race-check", "--cache", "line=16", &elf("apps", "vbw_vec_fft")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("(spr/dma_r)") && err.contains("(spr/vec)"), "{err}");
    let load = source_line("firmware/apps/vbxware/vbw_vec_fft.c", "wr = f->tw_r[t * step]");
    assert!(err.contains(&load), "{err}");
    assert!(err.contains("fix (sync)"), "{err}");
}

/// `--user-code GLOB` decides which frames are the firmware's own: with the SDK's headers
/// declared user code, the DMA side's top frame is the SDK's command issue in `vbx.h`, not
/// the program's call of it; a malformed glob is a usage error.
#[test]
fn user_code_globs_choose_the_top_frames() {
    let app = common::elf("apps", "vbw_vec_add_2021");
    let o = mxpsim(&["--race-check", "--cache", "line=64", "--user-code", "firmware/sdk/**", &app]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    let headline = err.lines().find(|l| l.starts_with("  between ")).expect("a headline");
    let dma_side = headline.split(" and ").nth(1).expect("two sides");
    assert!(dma_side.starts_with("vbx_cmd4_ (firmware/sdk/include/vbx.h:"), "{headline}");
    let bad = mxpsim(&["--race-check", "--user-code", "a[", &app]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

//! `--race-check` and `detect` through the command line, on firmware whose races are known:
//! `cache_coherence.c` mixes uncached and cached accesses to the same lines on purpose.

use std::path::PathBuf;

mod common;
use common::{elf, firmware, mxpsim, stderr, temp};

#[test]
fn cpu_only_firmware_has_no_cpu_accelerator_races() {
    let o = mxpsim(&["run", "--race-check", &firmware("cache_coherence")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("race check: 0 distinct races"), "{}", stderr(&o));
}

#[test]
fn uncached_versus_cache_races_are_reported_with_the_option() {
    let o = mxpsim(&["--race-check", "--race-uncached", &firmware("cache_coherence")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("race check: 4 distinct races (4 occurrences)"), "{err}");
    // Step 5 of the program: the uncached read of the DMA buffer after the CPU dirtied the
    // line that shares it, with no flush in between.
    assert!(err.contains("race 3 of 4: DRAM bytes 0x80200808..0x8020080c in `shared+0x8`"), "{err}");
    assert!(err.contains("write-back of line 0x80200800, dirtied by the store at 0x800003b4 <main+0x154> (firmware/tests/cache_coherence.c:68)"), "{err}");
    assert!(err.contains("no clean, flush or invalidate of line 0x80200800 follows the store"), "{err}");
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
    let races = v["races"].as_array().unwrap();
    assert_eq!(races.len(), 4);
    assert_eq!(races[2]["variable"], "shared+0x8");
    assert_eq!(races[2]["b"]["kind"], "wb");
    assert_eq!(races[2]["b"]["line"], "firmware/tests/cache_coherence.c:68");
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
    let not_a_trace = mxpsim(&["detect", &elf]);
    assert_eq!(not_a_trace.status.code(), Some(124));
    assert!(stderr(&not_a_trace).contains("not an mxpsim event trace"));
}

#[test]
fn halt_on_race_stops_at_the_first() {
    let o = mxpsim(&["run", "--race-check", "--race-uncached", "--halt-on-race", &firmware("cache_coherence")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("stopped at the first race"), "{err}");
    assert!(err.contains("race check: 1 distinct race (1 occurrence)"), "{err}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("flush all"), "the run stopped early");
}

/// The accelerator test programs synchronise correctly, except `vec_add`, whose result
/// buffer shares a 32-byte cache line with the heap block header that `vbx_shared_free`
/// (through `free`) reads and writes: the SDK pads shared buffers to 16 bytes
/// (`VBX_CPU_DCACHE_LINE_SIZE`), the default cache has 32-byte lines. With 16-byte lines
/// the race is gone.
#[test]
fn accelerator_programs_race_only_where_padding_and_line_size_disagree() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("firmware/bin/mxp-tests");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    for name in names {
        let elf = elf("mxp-tests", &name);
        let o = mxpsim(&["--race-check", &elf]);
        let err = stderr(&o);
        if name == "vec_add" {
            assert_eq!(o.status.code(), Some(66), "{err}");
            assert!(err.contains("race check: 1 distinct race"), "{err}");
            assert!(err.contains("DMA write of DRAM from the scratchpad (vbx_dma_to_host)"), "{err}");
            assert!(
                err.contains("fill of line 0x802007c0 from memory, for the load at") && err.contains("<free+"),
                "{err}"
            );
            let o = mxpsim(&["--race-check", "--cache", "line=16", &elf]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        } else {
            assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        }
    }
}

/// The race verdict with the cycle numbers taken out (they legitimately change with timing).
fn verdict(args: &[&str]) -> serde_json::Value {
    let file = temp(&format!("verdict-{}.json", args.join("_").replace(['/', '=', ','], "-")));
    let mut all = vec!["run", "--race-check", "--report-format", "json", "--report-file", &file];
    all.extend_from_slice(args);
    let o = mxpsim(&all);
    assert!(matches!(o.status.code(), Some(0 | 66)), "{args:?}: {}", stderr(&o));
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for race in v["races"].as_array_mut().unwrap() {
        for side in ["a", "b"] {
            let node = race[side].as_object_mut().unwrap();
            node.remove("cycle");
            let description = node["description"].as_str().unwrap();
            let without_cycle = description.split(" (cycle").next().unwrap().to_string();
            node.insert("description".into(), without_cycle.into());
        }
    }
    v
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
    for program in &programs {
        let base = verdict(&[program]);
        for variant in variants {
            let mut args = variant.to_vec();
            args.push(program);
            assert_eq!(verdict(&args), base, "{program} with {variant:?}");
        }
    }
}

/// The paper's first race, in the port of the SDK's `vbw_vec_add`: with 64-byte lines the
/// line holding the tail of the cached `scalar_out` also holds the head of the shared
/// `vector_in1`; the CPU dirties it (zeroing `scalar_out`) and nothing orders its write-back
/// with the DMA that reads `vector_in1`. The SDK's 16-byte padding hides it from 16- and
/// 32-byte lines.
#[test]
fn vbw_vec_add_has_the_papers_race_with_64_byte_lines() {
    let app = elf("apps", "vbw_vec_add_2021");
    let o = mxpsim(&["--race-check", "--cache", "line=64", &app]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("race check: 1 distinct race"), "{err}");
    assert!(
        err.contains("write-back of line") && err.contains("dirtied by the store at") && err.contains("<memset+"),
        "{err}"
    );
    assert!(err.contains("DMA read of DRAM into the scratchpad (vbx_dma_to_vector)"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("Test passed!"), "the race is latent in this run");
    for line in ["line=32", "line=16"] {
        let o = mxpsim(&["--race-check", "--cache", line, &app]);
        assert_eq!(o.status.code(), Some(0), "{line}: {}", stderr(&o));
    }
}

/// Every injected bug (a removed sync, a cached buffer where a shared one belongs) is
/// reported with 16-byte lines, the configuration under which the unmodified programs are
/// silent.
#[test]
fn injected_bugs_are_all_reported() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("firmware/bin/apps-bugs");
    let mut bugs: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    bugs.sort();
    assert_eq!(bugs.len(), 4);
    for bug in &bugs {
        let o = mxpsim(&["--race-check", "--cache", "line=16", &elf("apps-bugs", bug)]);
        assert_eq!(o.status.code(), Some(66), "{bug}: {}", stderr(&o));
    }
    for app in ["vbw_vec_add", "vbw_vec_add_2021", "vbw_mtx_motest"] {
        let o = mxpsim(&["--race-check", "--cache", "line=16", &elf("apps", app)]);
        assert_eq!(o.status.code(), Some(0), "{app}: {}", stderr(&o));
    }
}

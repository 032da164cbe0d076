//! `--timeline`: the file is a well-formed Chrome trace-event document (what Perfetto's UI
//! and chrome://tracing load): metadata names the tracks, every duration event has a
//! non-negative length, B/E spans nest per track in time order, flow arrows come in pairs;
//! and it shows what the program does, derived from its source: vbw_vec_add issues two DMAs
//! to the scratchpad, one vector add and one DMA to host.

mod common;
use common::{elf, mxpsim, stderr, temp};
use serde_json::Value;
use std::collections::HashMap;

fn timeline(args: &[&str], name: &str) -> Value {
    let out = temp(name);
    let mut all = vec!["run", "--race-check", "--cache", "line=64", "--timeline", &out];
    all.extend_from_slice(args);
    let o = mxpsim(&all);
    assert!(matches!(o.status.code(), Some(0 | 66)), "{}", stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

/// Checks the document's structure; returns the events by phase.
fn well_formed(doc: &Value) -> HashMap<String, Vec<Value>> {
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let mut by_phase: HashMap<String, Vec<Value>> = HashMap::new();
    let mut open: HashMap<u64, Vec<(String, f64)>> = HashMap::new();
    let mut flows: HashMap<u64, (usize, usize)> = HashMap::new();
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        by_phase.entry(ph.to_string()).or_default().push(e.clone());
        assert_eq!(e["pid"], 1, "{e}");
        if ph == "M" {
            continue;
        }
        let ts = e["ts"].as_f64().unwrap_or_else(|| panic!("no ts: {e}"));
        let tid = e["tid"].as_u64().expect("tid");
        match ph {
            "X" => assert!(e["dur"].as_f64().unwrap() >= 0.0, "{e}"),
            "B" => open.entry(tid).or_default().push((e["name"].as_str().unwrap().to_string(), ts)),
            "E" => {
                let (name, start) = open.get_mut(&tid).and_then(Vec::pop).unwrap_or_else(|| panic!("E without B: {e}"));
                assert_eq!(name, e["name"].as_str().unwrap());
                assert!(ts >= start, "{e}");
            }
            "s" => flows.entry(e["id"].as_u64().unwrap()).or_default().0 += 1,
            "f" => flows.entry(e["id"].as_u64().unwrap()).or_default().1 += 1,
            "i" => assert_eq!(e["s"], "t"),
            other => panic!("unexpected phase {other}"),
        }
    }
    assert!(open.values().all(Vec::is_empty), "unclosed spans");
    assert!(flows.values().all(|&(s, f)| s == 1 && f == 1), "{flows:?}");
    let names: Vec<&str> = by_phase["M"].iter().filter_map(|e| e["args"]["name"].as_str()).collect();
    for track in ["CPU", "DMA queue", "vector queue", "cache"] {
        assert!(names.contains(&track), "{names:?}");
    }
    by_phase
}

#[test]
fn vec_add_timeline_shows_its_commands_and_its_race() {
    let doc = timeline(&[&elf("apps", "vbw_vec_add_2021")], "vec_add.json");
    let events = well_formed(&doc);
    let slices: Vec<&str> = events["X"].iter().filter_map(|e| e["name"].as_str()).collect();
    let count = |what: &str| slices.iter().filter(|n| n.starts_with(what)).count();
    assert_eq!(count("DMA read of DRAM (vbx_dma_to_vector) at"), 2, "{slices:?}");
    assert_eq!(count("DMA write to DRAM (vbx_dma_to_host) at"), 1, "{slices:?}");
    assert_eq!(count("vector instruction at"), 1, "{slices:?}");
    let flows = &events["s"];
    assert_eq!(flows.len(), 1);
    assert!(flows[0]["name"].as_str().unwrap().starts_with("race 1: wb/dma_r"), "{flows:?}");
    let spans: Vec<&str> = events["B"].iter().filter_map(|e| e["name"].as_str()).collect();
    assert!(spans.contains(&"main") && spans.contains(&"vbx_test_init"), "{:?}", &spans[..spans.len().min(20)]);
    assert_eq!(doc["otherData"]["records_left_out"], 0);
}

/// The timeline names the program by its file name: the same run from another path gave
/// another file (the path as typed was in the process's name).
#[test]
fn the_timeline_does_not_depend_on_the_path_typed() {
    let original = elf("apps", "vbw_vec_add_2021");
    let dir = temp("timeline-elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let copy = format!("{dir}/vbw_vec_add_2021.elf");
    std::fs::copy(&original, &copy).unwrap();
    let here = timeline(&[&original], "path-original.json");
    let there = timeline(&[&copy], "path-copy.json");
    assert_eq!(here, there);
    let names: Vec<&str> = here["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert_eq!(names, ["mxpsim: vbw_vec_add_2021.elf"]);
}

#[test]
fn a_window_keeps_only_its_cycles() {
    let doc = timeline(&["--timeline-window", "1000:2000", &elf("apps", "vbw_vec_add_2021")], "window.json");
    let events = well_formed(&doc);
    for e in events.values().flatten().filter(|e| e["ph"] != "M" && e["ph"] != "E") {
        let ts = e["ts"].as_f64().unwrap();
        assert!((1000.0..2000.0).contains(&ts), "{e}");
    }
    assert_eq!(doc["otherData"]["window"]["from"], 1000);
}

#[test]
fn bad_windows_and_missing_race_check_are_refused() {
    for window in ["5", "9:3", "a:b"] {
        let o = mxpsim(&[
            "run",
            "--race-check",
            "--timeline",
            &temp("w.json"),
            "--timeline-window",
            window,
            &elf("tests", "hello"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{window}: {}", stderr(&o));
        assert!(stderr(&o).contains("--timeline-window"), "{}", stderr(&o));
    }
    let o = mxpsim(&["run", "--timeline", &temp("x.json"), &elf("tests", "hello")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The timeline's events were a list of JSON values until the end: some 1.9 KB of memory an
/// event, 1.4 GB for the first 4 × 10⁷ instructions of cpubench (3.7 GB at the record cap)
/// where the file is 67 MB. Written as they are made, the run fits in 1.5 GB of address
/// space (it aborted, unable to allocate).
#[test]
fn a_long_timeline_fits_in_modest_memory() {
    let out = temp("long-timeline.json");
    let run = format!(
        "ulimit -v 1500000; exec \"$0\" run --race-check --timeline {out} --max-insns 40000000 {}",
        elf("bench", "cpubench")
    );
    let o = std::process::Command::new("sh").args(["-c", &run, env!("CARGO_BIN_EXE_mxpsim")]).output().unwrap();
    // (The instruction limit: cpubench runs 2 × 10⁸.)
    assert_eq!(o.status.code(), Some(120), "{}", stderr(&o));
    well_formed(&serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap());
}

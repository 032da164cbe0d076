//! `mxpsim provoke`: the SDK's vec_add race made to happen, with what it breaks derived from
//! the program's source and the race model; byte-identical repeats; the JSON schema.

mod common;
use common::{elf, mxpsim, provoke_verdicts, stderr, temp};
use rayon::prelude::*;
use serde_json::Value;

/// `provoke` with JSON output; returns the document.
fn provoke_json(args: &[&str]) -> Value {
    let out = temp(&format!("provoke-{}.json", args.join("_").replace(['/', '='], "_")));
    let mut all = vec!["provoke", "--report-format", "json", "--report-file", &out];
    all.extend_from_slice(args);
    let o = mxpsim(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

/// The first `n` values of the SDK's `test_init_array_byte` from `seed` (mxp-spec.md §6.2):
/// d[0] = seed, then d[i] = P | ((d[i-1] << 1) & 0xFE), P = bits 7 ^ 5 ^ 4 ^ 3 of d[i-1].
fn init_array_byte(seed: u8, n: usize) -> Vec<u8> {
    let mut out = vec![seed];
    while out.len() < n {
        let p = *out.last().unwrap();
        let bit = (p >> 7 ^ p >> 5 ^ p >> 4 ^ p >> 3) & 1;
        out.push(bit | (p << 1) & 0xFE);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// vbw_vec_add_2021 at 64-byte lines: the write-back of the line that `scalar_out`'s tail
/// shares with the first 16 bytes of `vector_in1` (a 16-byte-padded shared buffer) races
/// with the DMA that reads `vector_in1`. Under whole-line write-back the write-back carries
/// the line's clean bytes as its fill read them, and the model lets that fill happen right
/// after the line's last flush or invalidate, before `vector_in1` is initialised (DRAM is
/// zero there then). Written back before the DMA, those 16 zeros are what the DMA reads in
/// place of `init_array_byte(1)` (SEED_IN1 = 1), so `vector_out[i] = in2[i]` for i < 16 and the
/// verify fails at sample 0: harmful. The other order (the DMA first, the stale write-back
/// after it) leaves the vector result right but `vector_in1`'s first 16 bytes zero at the end.
#[test]
fn vec_add_race_is_provoked_both_ways() {
    let doc = provoke_json(&["--cache", "line=64", &elf("apps", "vbw_vec_add_2021")]);
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    let f = &findings[0];
    assert_eq!(f["finding"]["class"], "wb/dma_r");
    assert_eq!(f["verdict"], "harmful");
    let attempts = f["attempts"].as_array().unwrap();
    let (wb_first, dma_first) = (&attempts[0], &attempts[1]);
    assert_eq!(wb_first["order"], "a-before-b");
    assert_eq!(wb_first["realised"], true);
    let input = init_array_byte(1, 16);
    let read = &wb_first["other_side"][0];
    assert_eq!(read["when"], "read");
    assert_eq!(read["len"], 16);
    assert_eq!(read["first_run"], hex(&input));
    assert_eq!(read["this_run"], hex(&[0; 16]));
    let lines: Vec<&str> = wb_first["console"].as_array().unwrap().iter().filter_map(|l| l["this"].as_str()).collect();
    assert!(lines.contains(&"Fail at sample 0."), "{lines:?}");
    assert_eq!(wb_first["verdict"], "harmful");

    assert_eq!(dma_first["order"], "b-before-a");
    assert_eq!(dma_first["console_lines"], 0);
    assert_eq!(dma_first["other_side"], serde_json::json!([]));
    let memory = dma_first["memory"].as_array().unwrap();
    assert_eq!(memory.len(), 1, "{memory:?}");
    assert_eq!(memory[0]["start"], read["start"]);
    assert_eq!(memory[0]["first_run"], hex(&input));
    assert_eq!(memory[0]["this_run"], hex(&[0; 16]));
    assert_eq!(dma_first["verdict"], "silent-corruption");
}

/// vbw_mtx_motest at 64-byte lines, the paper's second race: the line 0x80414040 holds the
/// tail of a buffer `init_motest` writes through the cache and the head of the SAD result
/// buffer the DMA writes (`vbx_dma_to_host`). Kept from right after its last flush (the
/// result buffer is still zero in DRAM then) and written back after the DMA, the line puts
/// those zeros back over the DMA's results: the verify fails with a vector value of 0.
/// Written back before the DMA, nothing changes.
#[test]
fn motest_write_back_undoes_the_dma_results() {
    let doc = provoke_json(&["--cache", "line=64", &elf("apps", "vbw_mtx_motest")]);
    let f = &doc["findings"][0];
    assert_eq!(f["finding"]["class"], "wb/dma_w");
    assert_eq!(f["verdict"], "harmful");
    let (wb_first, dma_first) = (&f["attempts"][0], &f["attempts"][1]);
    assert_eq!(wb_first["verdict"], "benign", "{wb_first:#}");
    assert_eq!(dma_first["order"], "b-before-a");
    let racing = f["finding"]["bytes"][0]["start"].as_str().unwrap();
    let racing = u32::from_str_radix(racing.trim_start_matches("0x"), 16).unwrap();
    let undone = dma_first["memory"].as_array().unwrap().iter().find(|d| {
        let start = u32::from_str_radix(d["start"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
        d["space"] == "DRAM" && start == racing
    });
    let undone = undone.unwrap_or_else(|| panic!("the racing bytes differ at the end: {dma_first:#}"));
    assert!(undone["this_run"].as_str().unwrap().chars().all(|c| c == '0'), "{undone}");
    let lines: Vec<&str> = dma_first["console"].as_array().unwrap().iter().filter_map(|l| l["this"].as_str()).collect();
    assert!(lines.iter().any(|l| l.starts_with("Fail at sample ")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("Vector: 0 ")), "{lines:?}");
}

/// dma_r_vec_waw: `vbx_dma_to_vector(v, src)` (src = 1..16) and `vbx(SEW, VMOV, v, 7, 0)`
/// both write v with no sync or interlock between the two queues. The DMA last leaves
/// v[0] = 1 (what the first run prints: the DMA is the slower); the VMOV last, 7. So the DMA
/// first (A before B) prints "v[0] = 7": harmful; the other order is the first run's.
#[test]
fn the_two_engine_queues_are_ordered_both_ways() {
    let doc = provoke_json(&[&elf("race-tests", "dma_r_vec_waw")]);
    let f = &doc["findings"][0];
    assert_eq!(f["finding"]["class"], "dma_r/vec");
    assert_eq!(f["verdict"], "harmful");
    let (dma_first, vec_first) = (&f["attempts"][0], &f["attempts"][1]);
    assert_eq!(dma_first["realised"], true);
    let gained: Vec<&str> =
        dma_first["console"].as_array().unwrap().iter().filter_map(|l| l["this"].as_str()).collect();
    assert_eq!(gained, ["v[0] = 7"]);
    assert_eq!(vec_first["verdict"], "benign", "{vec_first:#}");
}

/// The injected-bug variants whose provoke runs take a few seconds. The others take minutes in
/// a debug build; their headers' `expect-provoke:` lines were compared with provoke once, when
/// they were derived (all 142 findings agreed), and are not run here.
const QUICK_BUGS: [&str; 13] = [
    "vbw_libfixmath_cached_input",
    "vbw_libfixmath_no_div_sync",
    "vbw_libfixmath_no_sqrt_sync",
    "vbw_vec_add_cached_input",
    "vbw_vec_add_no_final_sync",
    "vbw_vec_fir_cached_sample",
    "vbw_vec_power_cached_output",
    "vbw_vec_power_no_final_sync",
    "vbw_vec_power_no_loop_sync",
    "vbw_mtx_motest_no_first_sync",
    "vbw_mtx_motest_cached_result",
    "vbw_mtx_fir_cached_input",
    "vbw_mtx_fir_no_routine_sync",
];

/// Each quick bug variant gets the verdicts its header's `expect-provoke: CACHE CLASS
/// a-before-b=V b-before-a=V` lines state (derived by hand from the sources and the model),
/// compared as a multiset.
#[test]
fn bug_variants_get_the_verdicts_their_headers_state() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("firmware/apps/bugs");
    let problems: Vec<String> = QUICK_BUGS
        .par_iter()
        .filter_map(|name| {
            let source = ["c", "cpp"]
                .iter()
                .find_map(|ext| std::fs::read_to_string(root.join(format!("{name}.{ext}"))).ok())
                .unwrap_or_else(|| panic!("{name}: no source"));
            let mut want: Vec<(String, String)> = source
                .lines()
                .filter_map(|l| l.trim_start_matches([' ', '*']).strip_prefix("expect-provoke:"))
                .map(|spec| {
                    let (cache, rest) = spec.trim().split_once(' ').expect("CACHE CLASS VERDICTS");
                    (cache.to_string(), rest.split_whitespace().collect::<Vec<_>>().join(" "))
                })
                .collect();
            assert!(!want.is_empty(), "{name}: no expect-provoke lines");
            let cache = want[0].0.clone();
            assert!(want.iter().all(|(c, _)| *c == cache), "{name}: one cache configuration");
            let doc = provoke_json(&["--cache", &cache, &elf("apps-bugs", name)]);
            let mut got: Vec<(String, String)> =
                doc["findings"].as_array().unwrap().iter().map(|f| (cache.clone(), provoke_verdicts(f))).collect();
            want.sort();
            got.sort();
            (got != want).then(|| format!("{name}: expected {want:?}, provoke gives {got:?}"))
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Same ELF, same options: the same bytes, wherever the output goes.
#[test]
fn provoke_is_deterministic() {
    let args = ["provoke", "--cache", "line=64", &elf("apps", "vbw_vec_add_2021")];
    let (a, b) = (mxpsim(&args), mxpsim(&args));
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8_lossy(&a.stdout);
    assert!(text.contains("SUMMARY: provoke: 1 finding: 1 harmful"), "{text}");
}

#[test]
fn provoke_json_matches_its_schema() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schemas/provoke.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (dir, name) in [("apps", "vbw_vec_add_2021"), ("apps", "vbw_mtx_motest")] {
        let doc = provoke_json(&["--cache", "line=64", &elf(dir, name)]);
        let errors: Vec<String> =
            validator.iter_errors(&doc).take(5).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn a_race_number_that_is_no_finding_is_refused() {
    let o = mxpsim(&["provoke", "--race", "5", "--cache", "line=64", &elf("apps", "vbw_vec_add_2021")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--race 5: the first run has 1 finding(s)"), "{}", stderr(&o));
}

/// `run --race-check --provoke`: the run as usual (console on standard output, race report
/// and exit status 66), then on standard error exactly what `mxpsim provoke` prints.
#[test]
fn run_with_provoke_appends_the_provoke_report() {
    let fw = elf("race-tests", "spw_dma_r");
    let run = mxpsim(&["run", "--race-check", "--provoke", &fw]);
    assert_eq!(run.status.code(), Some(66), "{}", stderr(&run));
    let plain = mxpsim(&["run", "--race-check", &fw]);
    assert_eq!(run.stdout, plain.stdout, "the console appears once, as without --provoke");
    let provoke = mxpsim(&["provoke", &fw]);
    let provoke = String::from_utf8_lossy(&provoke.stdout).into_owned();
    let err = stderr(&run);
    let report = stderr(&plain);
    assert!(err.starts_with(&report), "the race report comes first:\n{err}");
    assert_eq!(err[report.len()..].trim_start_matches('\n'), provoke);
    assert!(provoke.contains("SUMMARY: provoke: 1 finding: 1 harmful"), "{provoke}");
    let without = mxpsim(&["run", "--provoke", &fw]);
    assert_eq!(without.status.code(), Some(2), "--provoke needs --race-check: {}", stderr(&without));
}

/// vbw_vec_add_no_final_sync: the output DMA is still pending when the program checks the
/// output. Holding it past the CPU's reads makes the check fail and print, so the program takes
/// another path, and the CPU nodes the later directives name (counted from the start) are other
/// instructions than in the first run: such an attempt says so and is not realised.
#[test]
fn a_change_of_path_is_reported_and_not_realised() {
    let doc = provoke_json(&["--cache", "line=32", &elf("apps-bugs", "vbw_vec_add_no_final_sync")]);
    let attempts: Vec<&Value> =
        doc["findings"].as_array().unwrap().iter().flat_map(|f| f["attempts"].as_array().unwrap()).collect();
    let diverged: Vec<&&Value> = attempts.iter().filter(|a| !a["diverged"].is_null()).collect();
    assert!(!diverged.is_empty(), "{doc:#}");
    for a in &diverged {
        assert_eq!(a["realised"], false, "{a:#}");
        assert_ne!(a["diverged"]["first"], a["diverged"]["this"], "{a:#}");
    }
}

//! `mxpsim sweep`: one row per program and cache configuration, in a fixed order whatever
//! the parallel scheduling, with the same verdicts as single `--race-check` runs.

mod common;
use common::{elf, mxpsim, stderr, temp};

#[test]
fn sweep_tabulates_the_grid_deterministically() {
    let (app, small) = (elf("apps", "vbw_vec_add_2021"), elf("mxp-tests", "vec_add"));
    let csv = temp("sweep.csv");
    let args = ["sweep", "--line", "16,64", "--wb", "line,byte", &app, &small, "--csv", &csv];
    let first = mxpsim(&args);
    // A cell raced: the sweep exits as a run with races would.
    assert_eq!(first.status.code(), Some(66), "{}", stderr(&first));
    let table = String::from_utf8(first.stdout.clone()).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 8, "2 programs x 2 line sizes x 2 granularities:\n{table}");
    // Program-major, then the grid in the order given.
    let specs: Vec<String> = rows.iter().map(|r| r.split_whitespace().take(2).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(
        specs[..4],
        [
            "vbw_vec_add_2021 line=16,wb=line",
            "vbw_vec_add_2021 line=16,wb=byte",
            "vbw_vec_add_2021 line=64,wb=line",
            "vbw_vec_add_2021 line=64,wb=byte"
        ]
    );
    // The paper's race: whole-line write-back with 64-byte lines only.
    assert!(rows[2].ends_with("1  wb/dma_r"), "{}", rows[2]);
    assert!(rows[3].contains(" 0  "), "{}", rows[3]);
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert!(csv_text.starts_with("program,cache,status,instructions,cycles,miss_rate,writebacks,races,signature\n"));
    assert_eq!(csv_text.lines().count(), 9);
    // Byte-identical again.
    let second = mxpsim(&args);
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(csv_text, std::fs::read_to_string(&csv).unwrap());
}

#[test]
fn sweep_refuses_invalid_grids() {
    let o = mxpsim(&["sweep", "--line", "48", &elf("mxp-tests", "vec_add")]);
    assert_eq!(o.status.code(), Some(110));
    assert!(stderr(&o).contains("cache.line"), "{}", stderr(&o));
}

#[test]
fn sweep_reports_unloadable_programs_like_run() {
    let o = mxpsim(&["sweep", "/nonexistent/fw.elf"]);
    assert_eq!(o.status.code(), Some(101), "{}", stderr(&o));
}

#[test]
fn the_grid_can_come_from_a_toml_file() {
    let grid = temp("grid.toml");
    std::fs::write(&grid, "line = [16, 64]\nwb = [\"line\"]\n").unwrap();
    let o = mxpsim(&["sweep", "--exit-zero", "--grid", &grid, &elf("apps", "vbw_vec_add_2021")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = String::from_utf8(o.stdout).unwrap();
    let specs: Vec<&str> = table.lines().skip(1).map(|r| r.split_whitespace().nth(1).unwrap()).collect();
    assert_eq!(specs, ["line=16,wb=line", "line=64,wb=line"]);
    std::fs::write(&grid, "colour = [1]\n").unwrap();
    let o = mxpsim(&["sweep", "--grid", &grid, &elf("apps", "vbw_vec_add_2021")]);
    assert_eq!(o.status.code(), Some(110));
    assert!(stderr(&o).contains("unknown key 'colour'"), "{}", stderr(&o));
}

#[test]
fn sweep_exit_status_follows_the_run_precedence() {
    // Clean cells: 0. A cell that hits the instruction limit: 120, over a cell that races.
    let clean = mxpsim(&["sweep", "--line", "16", &elf("mxp-tests", "vec_add")]);
    assert_eq!(clean.status.code(), Some(0), "{}", stderr(&clean));
    let app = elf("apps", "vbw_vec_add_2021");
    let limited = mxpsim(&["sweep", "--line", "64", "--max-insns", "1000", &app, &elf("mxp-tests", "vec_add")]);
    assert_eq!(limited.status.code(), Some(120), "{}", stderr(&limited));
    let table = String::from_utf8(limited.stdout).unwrap();
    assert!(table.contains("instruction limit"), "{table}");
    let zero = mxpsim(&["sweep", "--exit-zero", "--line", "64", "--max-insns", "1000", &app]);
    assert_eq!(zero.status.code(), Some(0), "{}", stderr(&zero));
}

/// `sweep --shard K/N` for every K, merged in any order, gives byte for byte the table, CSV,
/// JSON and exit status of one sweep of the whole grid, for several N (one shard, an uneven
/// split, more shards than cells).
#[test]
fn shards_merged_equal_one_sweep() {
    let programs = [elf("mxp-tests", "vec_add"), elf("race-tests", "spw_dma_r"), elf("race-tests", "false_sharing_64")];
    let grid = ["--line", "16,32,64", "--wb", "line,byte"];
    let sweep = |extra: &[&str]| {
        let mut args = vec!["sweep"];
        args.extend(grid);
        args.extend(extra);
        args.extend(programs.iter().map(String::as_str));
        mxpsim(&args)
    };
    let (csv, json) = (temp("whole.csv"), temp("whole.json"));
    let whole = sweep(&["--csv", &csv, "--json", &json]);
    assert_eq!(whole.status.code(), Some(66), "{}", stderr(&whole));
    for n in [1, 4, 7, 25] {
        let mut files: Vec<String> = (0..n)
            .map(|k| {
                let o = sweep(&["--shard", &format!("{k}/{n}")]);
                assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                let file = temp(&format!("shard-{k}-of-{n}.jsonl"));
                std::fs::write(&file, &o.stdout).unwrap();
                file
            })
            .collect();
        files.reverse();
        let (m_csv, m_json) = (temp(&format!("merged-{n}.csv")), temp(&format!("merged-{n}.json")));
        let mut args = vec!["sweep", "merge", "--csv", &m_csv, "--json", &m_json];
        args.extend(files.iter().map(String::as_str));
        let merged = mxpsim(&args);
        assert_eq!(merged.status.code(), whole.status.code(), "{n} shards: {}", stderr(&merged));
        assert_eq!(merged.stdout, whole.stdout, "{n} shards: the table");
        assert_eq!(std::fs::read(&m_csv).unwrap(), std::fs::read(&csv).unwrap(), "{n} shards: CSV");
        assert_eq!(std::fs::read(&m_json).unwrap(), std::fs::read(&json).unwrap(), "{n} shards: JSON");
    }
}

/// Shards that do not make one sweep are refused with their own status (111), saying why.
#[test]
fn merge_refuses_what_is_not_one_sweep() {
    let program = elf("mxp-tests", "vec_add");
    let shard = |k: usize, line: &str| {
        let o = mxpsim(&["sweep", "--shard", &format!("{k}/2"), "--line", line, &program]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let file = temp(&format!("refuse-{k}-{}.jsonl", line.replace(',', "_")));
        std::fs::write(&file, &o.stdout).unwrap();
        file
    };
    let (a, b, other) = (shard(0, "16,32"), shard(1, "16,32"), shard(1, "16,64"));
    let merge = |files: &[&str]| {
        let mut args = vec!["sweep", "merge"];
        args.extend(files);
        mxpsim(&args)
    };
    let o = merge(&[&a]);
    assert_eq!(o.status.code(), Some(111));
    assert!(stderr(&o).contains("1 of the grid's 2 cells missing"), "{}", stderr(&o));
    let o = merge(&[&a, &a, &b]);
    assert_eq!(o.status.code(), Some(111));
    assert!(stderr(&o).contains("cell 0 is in both"), "{}", stderr(&o));
    let o = merge(&[&a, &other]);
    assert_eq!(o.status.code(), Some(111));
    assert!(stderr(&o).contains("another sweep"), "{}", stderr(&o));
    // Another program of the same file name is another sweep too (merged, it gave one table
    // of two programs' cells).
    let namesake = temp("namesake");
    std::fs::create_dir_all(&namesake).unwrap();
    let namesake = format!("{namesake}/vec_add.elf");
    std::fs::copy(elf("mxp-tests", "dma_1d"), &namesake).unwrap();
    let o = mxpsim(&["sweep", "--shard", "1/2", "--line", "16,32", &namesake]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let namesake_shard = temp("refuse-namesake.jsonl");
    std::fs::write(&namesake_shard, &o.stdout).unwrap();
    let o = merge(&[&a, &namesake_shard]);
    assert_eq!(o.status.code(), Some(111), "{}", stderr(&o));
    assert!(stderr(&o).contains("another sweep"), "{}", stderr(&o));
    // A shard of the format before the programs' fingerprints is refused by its format.
    let text = std::fs::read_to_string(&a).unwrap();
    let fingerprints = text.find(r#""firmware":["#).unwrap();
    let end = fingerprints + text[fingerprints..].find("],").unwrap() + 2;
    let old = format!("{}{}", &text[..fingerprints], &text[end..])
        .replace(r#""mxpsim_sweep_shard":2"#, r#""mxpsim_sweep_shard":1"#);
    let old_shard = temp("refuse-format-1.jsonl");
    std::fs::write(&old_shard, old).unwrap();
    let o = merge(&[&old_shard]);
    assert_eq!(o.status.code(), Some(111), "{}", stderr(&o));
    assert!(stderr(&o).contains("shard format 1 (this mxpsim reads 2)"), "{}", stderr(&o));
    let not_a_shard = temp("not-a-shard.txt");
    std::fs::write(&not_a_shard, "program,cache\n").unwrap();
    assert_eq!(merge(&[&not_a_shard]).status.code(), Some(111));
    // A binary file (an ELF given by mistake) is not a shard either (it was unreadable, 101).
    let o = merge(&[&program]);
    assert_eq!(o.status.code(), Some(111), "{}", stderr(&o));
    assert!(stderr(&o).contains("not the output of `sweep --shard`"), "{}", stderr(&o));
    assert_eq!(merge(&[&temp("no-such-shard.jsonl")]).status.code(), Some(101));
    for bad in ["2/2", "1", "a/3", "0/0"] {
        let o = mxpsim(&["sweep", "--shard", bad, &program]);
        assert_eq!(o.status.code(), Some(2), "--shard {bad}: {}", stderr(&o));
    }
}

/// `scripts/sweep-slurm.sbatch` as Slurm runs it (the array task's environment), for every
/// task of a 3-task array: the merge of what the tasks leave equals one sweep.
#[test]
fn the_slurm_script_shards_a_sweep() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = temp("slurm-shards");
    let program = elf("mxp-tests", "vec_add");
    let grid = ["--line", "16,32,64", "--wb", "line,byte"];
    for k in 0..3 {
        let o = std::process::Command::new("bash")
            .arg(root.join("scripts/sweep-slurm.sbatch"))
            .args(grid)
            .arg(&program)
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("SLURM_CPUS_PER_TASK", "1")
            .env("MXPSIM", env!("CARGO_BIN_EXE_mxpsim"))
            .env("SHARD_DIR", &dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "task {k}: {}", stderr(&o));
    }
    let shards: Vec<String> = (0..3).map(|k| format!("{dir}/shard-{k}.jsonl")).collect();
    let mut args = vec!["sweep", "merge", "--exit-zero"];
    args.extend(shards.iter().map(String::as_str));
    let merged = mxpsim(&args);
    let mut whole = vec!["sweep", "--exit-zero"];
    whole.extend(grid);
    whole.push(&program);
    let whole = mxpsim(&whole);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    assert_eq!(merged.stdout, whole.stdout);
}

/// Ctrl-C during a sweep delivers the cells that ran (issue 13: the table was lost): in the
/// table and the CSV, each as an uninterrupted sweep has it, or marked as cut short; the cells
/// not started are left out and the last line says so; the status is 130.
#[test]
fn ctrl_c_ends_a_sweep_with_the_cells_that_ran() {
    // runaway_dma waits on a DMA of 2^32 rows: it ends only by a limit or a signal.
    let (hello, long) = (common::firmware("hello"), elf("mxp-tests", "runaway_dma"));
    let grid = ["--line", "16,32", "--exit-zero"];
    let full = mxpsim(&[&["sweep"][..], &grid, &[&hello]].concat());
    assert_eq!(full.status.code(), Some(0), "{}", stderr(&full));
    let full_rows: Vec<String> = String::from_utf8(full.stdout).unwrap().lines().skip(1).map(String::from).collect();

    // One worker: cells run in grid order, so hello's two cells are done long before the
    // signal and runaway_dma's first is cut short.
    let csv = temp("interrupted-sweep.csv");
    let args = [&["sweep", "--csv", &csv][..], &grid, &[&hello, &long]].concat();
    let o = common::interrupted_after(
        std::time::Duration::from_secs(2),
        &args,
        &[("RAYON_NUM_THREADS", "1")],
        "-INT",
        "sweep-sigint",
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let table = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert!(
        err.trim_end().ends_with(&format!(
            "mxpsim: error: sweep: interrupted; the results hold the {} of its 4 cells that had started (a cell cut short says so)",
            rows.len()
        )),
        "{err}"
    );
    assert_eq!(rows.len(), 3, "hello twice, runaway_dma's first cell:\n{table}");
    // hello's rows are those of a sweep of hello alone, but for the status column's width.
    let squeeze = |r: &str| r.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(squeeze(rows[0]), squeeze(&full_rows[0]));
    assert_eq!(squeeze(rows[1]), squeeze(&full_rows[1]));
    assert!(rows[2].starts_with("runaway_dma  line=16  interrupted (SIGINT)"), "{table}");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 4, "{csv_text}");
    assert!(
        csv_text.lines().nth(3).unwrap().starts_with("runaway_dma,line=16,\"interrupted (SIGINT)\","),
        "{csv_text}"
    );
}

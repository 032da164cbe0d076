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

//! The files a command reads and writes, each named by what gives it, checked before anything
//! is created: an output that is one of the inputs would destroy it (the firmware emptied by
//! its own race report, a shard by the merge's CSV), and two outputs that are one file would
//! lose all but the last written. By the file, not the path's spelling: `./r.txt`, a link to
//! it and `r.txt` are one file.

use std::path::{Path, PathBuf};

/// Which file a path names.
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    /// An existing regular file, by device and inode: whichever path reaches it.
    #[cfg_attr(not(unix), allow(dead_code))]
    Inode(u64, u64),
    /// A file by its canonical path: one not created yet (its directory's canonical path and
    /// its name), or, where there are no inodes, any.
    Canonical(PathBuf),
}

/// The file `path` names; `None` for what any number of commands' outputs may share or what
/// fails on its own when opened: a device (`/dev/null`), a FIFO, a directory, a path whose
/// directory does not exist.
fn identity(path: &Path) -> Option<FileId> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Some(existing(path, &meta)),
        Ok(_) => None,
        Err(_) => {
            let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
            Some(FileId::Canonical(dir.canonicalize().ok()?.join(path.file_name()?)))
        }
    }
}

#[cfg(unix)]
fn existing(_path: &Path, meta: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId::Inode(meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn existing(path: &Path, _meta: &std::fs::Metadata) -> FileId {
    FileId::Canonical(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
}

/// A command's files: what reads each (`the firmware`, `--machine`) and what writes each
/// (`--report-file`), as its messages name them.
#[derive(Default)]
pub struct Files<'a> {
    inputs: Vec<(&'static str, &'a Path)>,
    outputs: Vec<(&'static str, &'a Path)>,
}

impl<'a> Files<'a> {
    pub fn input(&mut self, what: &'static str, path: Option<&'a Path>) -> &mut Self {
        self.inputs.extend(path.map(|p| (what, p)));
        self
    }

    pub fn output(&mut self, what: &'static str, path: Option<&'a Path>) -> &mut Self {
        self.outputs.extend(path.map(|p| (what, p)));
        self
    }

    /// The first output that is an input or an earlier output, as a one-line message.
    pub fn check(&self) -> Result<(), String> {
        let ids = |files: &[(&'static str, &'a Path)]| -> Vec<_> {
            files.iter().filter_map(|&(what, path)| Some((what, path, identity(path)?))).collect()
        };
        let (inputs, outputs) = (ids(&self.inputs), ids(&self.outputs));
        for (i, (what, path, id)) in outputs.iter().enumerate() {
            if let Some((read_by, read)) = inputs.iter().find(|(_, _, input)| input == id).map(|(w, p, _)| (w, p)) {
                return Err(format!(
                    "{what} {} is {read_by} ({}): writing it would destroy it",
                    path.display(),
                    read.display()
                ));
            }
            if let Some((earlier, earlier_path, _)) = outputs[..i].iter().find(|(_, _, other)| other == id) {
                return Err(format!(
                    "{earlier} {} and {what} {} are one file (each output needs its own)",
                    earlier_path.display(),
                    path.display()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of the test's own (the tests run at once).
    fn dir(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mxpsim-distinct-files-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_by_any_spelling() {
        let dir = dir("input");
        let elf = dir.join("fw.elf");
        std::fs::write(&elf, b"\x7fELF").unwrap();
        let dotted = dir.join(".").join("fw.elf");
        let link = dir.join("link.elf");
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        std::os::unix::fs::symlink(&elf, &link).unwrap();
        #[cfg(not(unix))]
        std::fs::copy(&elf, &link).unwrap();
        for spelling in [&elf, &dotted] {
            let mut files = Files::default();
            files.input("the firmware", Some(&elf)).output("--report-file", Some(spelling));
            let message = files.check().unwrap_err();
            assert!(
                message.starts_with("--report-file ") && message.ends_with("writing it would destroy it"),
                "{message}"
            );
        }
        #[cfg(unix)]
        {
            let mut files = Files::default();
            files.input("the firmware", Some(&link)).output("--stats-json", Some(&elf));
            assert!(files.check().is_err(), "a link to the output");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_outputs_that_are_one_new_file_are_refused() {
        let dir = dir("outputs");
        let (a, b) = (dir.join("r.txt"), dir.join("sub").join("..").join("r.txt"));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let mut files = Files::default();
        files.output("--stats-json", Some(&a)).output("--report-file", Some(&b));
        assert_eq!(
            files.check().unwrap_err(),
            format!(
                "--stats-json {} and --report-file {} are one file (each output needs its own)",
                a.display(),
                b.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn distinct_files_devices_and_unknown_directories_pass() {
        let dir = dir("pass");
        let (input, a, b) = (dir.join("in.elf"), dir.join("a.json"), dir.join("b.json"));
        std::fs::write(&input, b"x").unwrap();
        let null = Path::new("/dev/null");
        let missing = dir.join("no-such-dir").join("a.json");
        let mut files = Files::default();
        files
            .input("the firmware", Some(&input))
            .input("--machine", None)
            .output("--report-file", Some(&a))
            .output("--stats-json", Some(&b))
            .output("--trace", Some(null))
            .output("--timeline", Some(null))
            .output("--record-trace", Some(&missing));
        assert_eq!(files.check(), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

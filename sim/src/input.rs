//! Input files read whole (firmware, machine, grid, suppressions, shards), each only up to
//! a limit, so that no input (`/dev/zero`, `yes |`) makes mxpsim read until the host's
//! memory runs out; a character device (`/dev/null` reads as empty) to a small one, so that
//! `/dev/zero` is refused at once.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// The longest text input read: far beyond any machine, grid or suppressions file.
const TEXT_LIMIT: u64 = 64 << 20;

/// The most read from a character device.
const DEVICE_LIMIT: u64 = 1 << 20;

/// The bytes of the file at `path`, at most `limit` of them (more is an error).
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let device = file.metadata()?.file_type().is_char_device();
    let limit = if device { limit.min(DEVICE_LIMIT) } else { limit };
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        let what = if device { " (a character device, not a file)" } else { "" };
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, format!("longer than {limit} bytes{what}")));
    }
    Ok(bytes)
}

/// The text of the file at `path` (at most [`TEXT_LIMIT`] bytes); not UTF-8 is an
/// `InvalidData` error, as for [`std::fs::read_to_string`].
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path, TEXT_LIMIT)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_endless_inputs_are_refused() {
        assert_eq!(read(Path::new("/dev/zero"), 1 << 30).unwrap_err().kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(read(Path::new("/dev/null"), 1 << 30).unwrap(), b"");
        let file = std::env::temp_dir().join(format!("mxpsim-input-{}", std::process::id()));
        std::fs::write(&file, [b'x'; 100]).unwrap();
        assert_eq!(read(&file, 100).unwrap().len(), 100);
        assert_eq!(read(&file, 99).unwrap_err().kind(), io::ErrorKind::FileTooLarge);
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert_eq!(read_to_string(&file).unwrap_err().kind(), io::ErrorKind::InvalidData);
        std::fs::remove_file(&file).unwrap();
    }
}

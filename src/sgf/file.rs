//! SGF files on disk: a record read from a file (only a regular file, within
//! [`MAX_FILE_BYTES`], opened without blocking) and a text written to one for `printsgf
//! FILE` (never into the GTP stream). Knows nothing of boards or games, nor of what the
//! text holds beyond handing it to the parser.

use std::path::Path;

use super::scan::{parse_record_before, MAX_FILE_BYTES};
use super::{SgfError, SgfRecord};

/// Reads the SGF file at `path` and parses it as [`parse_record_before`] does: the one
/// way every front end (`loadsgf`, `tengen review`, `match --openings`, training) reads
/// a record from disk. See [`read_file_text`] for what files are read.
pub fn read_record_file(path: &Path, move_number: Option<u32>) -> Result<SgfRecord, SgfError> {
    let text = read_file_text(path)?;
    parse_record_before(&text, move_number)
}

/// The text of the SGF file at `path` (invalid UTF-8 replaced): only a regular file (not
/// a device such as `/dev/zero`, a pipe or a folder) of at most [`MAX_FILE_BYTES`], read
/// with that cap even if it grows meanwhile. Opening never blocks (a named pipe is opened
/// non-blocking, then refused).
pub fn read_file_text(path: &Path) -> Result<String, SgfError> {
    use std::io::Read;
    let fail = |e: std::io::Error| SgfError::File(e.to_string());
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if !meta.is_file() {
        return Err(SgfError::File("not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(SgfError::File(format!(
            "{} bytes, more than the {MAX_FILE_BYTES} a record may have",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(SgfError::File(format!(
            "more than the {MAX_FILE_BYTES} bytes a record may have"
        )));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Writes `text` to the file at `path` (created if missing, else replaced) for
/// `printsgf FILE`, without ever blocking or writing into the GTP stream: the file is
/// opened non-blocking (a named pipe without a reader fails at once), and only a regular
/// file that is not this process's standard output is written; a pipe, device, socket or
/// folder is refused before anything is written.
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let mut file = options.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if is_stdout(&meta) {
        return Err("the file is standard output, the GTP stream".into());
    }
    file.set_len(0).map_err(|e| e.to_string())?;
    file.write_all(text.as_bytes()).map_err(|e| e.to_string())
}

/// Whether `meta` is the file standard output (fd 1) writes to: same device and inode.
#[cfg(unix)]
fn is_stdout(meta: &std::fs::Metadata) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return false;
    };
    std::fs::File::from(fd)
        .metadata()
        .is_ok_and(|out| out.dev() == meta.dev() && out.ino() == meta.ino())
}

#[cfg(not(unix))]
fn is_stdout(_meta: &std::fs::Metadata) -> bool {
    false
}

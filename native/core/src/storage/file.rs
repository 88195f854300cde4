//! Local files: a positional-read [`Source`], an in-memory source, and atomic whole-file rewrites.

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Source;
use crate::error::{Error, Result};

/// A local file read with `pread` (no shared cursor, so any number of threads may read at once).
#[derive(Debug)]
pub struct FileSource {
    file: File,
    path: PathBuf,
}

impl FileSource {
    pub fn open(path: impl AsRef<Path>) -> Result<FileSource> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| {
            Error::Io(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", path.display()),
            ))
        })?;
        Ok(FileSource { file, path })
    }
}

impl Source for FileSource {
    fn len(&self) -> Result<u64> {
        Ok(self.file.metadata()?.len())
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let size = self.len()?;
        let avail = size.saturating_sub(offset).min(len as u64) as usize;
        let mut buf = vec![0u8; avail];
        let mut done = 0;
        while done < avail {
            let n = self.file.read_at(&mut buf[done..], offset + done as u64)?;
            if n == 0 {
                break;
            }
            done += n;
        }
        buf.truncate(done);
        Ok(buf)
    }
    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

/// Bytes in memory as a source (tests, benchmarks, data already fetched).
#[derive(Debug, Clone)]
pub struct MemSource {
    bytes: Arc<[u8]>,
}

impl MemSource {
    pub fn new(bytes: impl Into<Arc<[u8]>>) -> MemSource {
        MemSource {
            bytes: bytes.into(),
        }
    }
}

impl Source for MemSource {
    fn len(&self) -> Result<u64> {
        Ok(self.bytes.len() as u64)
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let start = (offset.min(self.bytes.len() as u64)) as usize;
        let end = start.saturating_add(len).min(self.bytes.len());
        Ok(self.bytes[start..end].to_vec())
    }
    fn describe(&self) -> String {
        format!("<memory, {} bytes>", self.bytes.len())
    }
}

/// Fsyncs a directory so that a rename or a new file in it is durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)?.sync_all()?;
    Ok(())
}

/// Replaces `path` with `parts` concatenated, atomically: temp file, write, fsync, rename, fsync dir.
pub fn write_atomic(path: &Path, parts: &[&[u8]]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::invalid(format!("{} has no file name", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    {
        let mut f = File::create(&tmp)?;
        for p in parts {
            f.write_all(p)?;
        }
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    sync_dir(dir)
}

//! Where bytes live. Readers see a recording through [`Source`], a trait of range reads, so that a
//! local file, an in-memory buffer and (later) object storage plug into the same read path.

mod file;
pub mod live;

pub use file::{FileSource, MemSource, sync_dir, write_atomic};

use crate::error::Result;

/// A read-only byte range provider. Implementations must be safe to call from many threads.
pub trait Source: Send + Sync + std::fmt::Debug {
    /// Total length in bytes.
    fn len(&self) -> Result<u64>;
    /// Whether the source is empty.
    fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
    /// Reads up to `len` bytes at `offset`; fewer only at the end of the source.
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>>;
    /// Reads exactly `len` bytes at `offset`, or fails with `Error::Truncated`.
    fn read_exact_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let b = self.read_up_to(offset, len)?;
        if b.len() != len {
            return Err(crate::Error::truncated(format!(
                "wanted {len} bytes at offset {offset}, source ends after {}",
                b.len()
            )));
        }
        Ok(b)
    }
    /// A human-readable name (path or URL) for messages.
    fn describe(&self) -> String;
}

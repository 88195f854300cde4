//! Range reads: [`Source`], what every reader sees a recording through (a local file, bytes in
//! memory, later object storage), and [`MemSource`].

use std::sync::Arc;

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

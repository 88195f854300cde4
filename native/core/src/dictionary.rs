//! Process-wide registry of zstd dictionaries by id. The header's dictionary id names one; writer
//! and reader must register the same bytes under the same id.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::sync::RwLock;

use crate::error::{Error, Result};

fn registry() -> &'static RwLock<HashMap<u16, Arc<Vec<u8>>>> {
    static R: OnceLock<RwLock<HashMap<u16, Arc<Vec<u8>>>>> = OnceLock::new();
    R.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Registers (or replaces) dictionary `id`. Id 0 means "no dictionary" and cannot be registered.
pub fn register(id: u16, bytes: Vec<u8>) -> Result<()> {
    if id == 0 {
        return Err(Error::invalid(
            "dictionary id 0 is reserved for no dictionary",
        ));
    }
    registry().write().insert(id, Arc::new(bytes));
    Ok(())
}

/// The dictionary for `id`: `None` for id 0, an error if `id` is not registered.
pub fn lookup(id: u16) -> Result<Option<Arc<Vec<u8>>>> {
    if id == 0 {
        return Ok(None);
    }
    registry()
        .read()
        .get(&id)
        .cloned()
        .map(Some)
        .ok_or_else(|| Error::Unsupported(format!("zstd dictionary {id} is not registered")))
}

/// Trains a dictionary from sample chunk payloads (uncompressed).
pub fn train(samples: &[Vec<u8>], max_size: usize) -> Result<Vec<u8>> {
    zstd::dict::from_samples(samples, max_size).map_err(Error::Io)
}

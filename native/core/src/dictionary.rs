//! Trained zstd dictionaries: what one is (zstd's own dictionary format, whose header carries the
//! id a recording's header names), the process-wide registry by id that writers and readers look
//! them up in, and training one from sample chunk payloads (FORMAT.md, section 6).
//!
//! One notion of id: a dictionary's id is the `Dictionary_ID` of its zstd header (bytes 4..8,
//! little-endian), which must lie in 1..=65535 because the recording header stores it in 16 bits.
//! [`train`] writes the chosen id there; [`register`] reads it from there. Registering the same
//! bytes twice is harmless; other bytes under an id already taken are refused (files written
//! with the first would no longer read).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use zstd::dict::DecoderDictionary;
use zstd::zstd_safe::DDict;

use crate::error::{Error, Result};
use crate::sync::RwLock;

/// The magic number that opens a zstd dictionary (little-endian in the file).
pub const MAGIC: u32 = 0xEC30_A437;

/// The largest dictionary accepted (registered, loaded, trained): a reader holds every registered
/// dictionary in memory, twice (the bytes and zstd's prepared form).
pub const MAX_DICTIONARY_BYTES: usize = 1 << 20;

/// The smallest dictionary zstd can train or load with its entropy tables.
pub const MIN_DICTIONARY_BYTES: usize = 256;

/// The size [`train`] aims at unless told otherwise (zstd's own default, 110 KiB).
pub const DEFAULT_DICTIONARY_BYTES: usize = 112_640;

/// The most sample bytes [`train`] takes (zstd's trainer holds them all, and more, in memory).
pub const MAX_TRAINING_BYTES: usize = 256 << 20;

/// The most samples [`train`] takes.
pub const MAX_TRAINING_SAMPLES: usize = 1 << 20;

/// A checked zstd dictionary: its id, its bytes and zstd's prepared form for decompression.
pub struct Dictionary {
    id: u16,
    bytes: Vec<u8>,
    decoder: DecoderDictionary<'static>,
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("id", &self.id)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// The id a zstd dictionary's header names, checked: the bytes open with [`MAGIC`], are within
/// [`MIN_DICTIONARY_BYTES`]..=[`MAX_DICTIONARY_BYTES`], and the id is in 1..=65535. Does not look
/// at the entropy tables ([`Dictionary::parse`] does).
pub fn id_of(bytes: &[u8]) -> Result<u16> {
    if bytes.len() < 8 || u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) != MAGIC {
        return Err(Error::invalid(
            "not a zstd dictionary (it must start with the magic number 0xEC30A437; \
             `tickreel dict train` makes one)",
        ));
    }
    if bytes.len() < MIN_DICTIONARY_BYTES || bytes.len() > MAX_DICTIONARY_BYTES {
        return Err(Error::limit(format!(
            "a dictionary of {} bytes; it must be {}",
            bytes.len(),
            crate::error::between(MIN_DICTIONARY_BYTES, MAX_DICTIONARY_BYTES)
        )));
    }
    let id = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    match u16::try_from(id) {
        Ok(id) if id != 0 => Ok(id),
        _ => Err(Error::invalid(format!(
            "dictionary id {id}: a recording's header holds ids {} (train with `tickreel dict \
             train --id N` to choose one)",
            crate::error::between(1, 65535)
        ))),
    }
}

impl Dictionary {
    /// Checks `bytes` as a dictionary ([`id_of`]), loads its entropy tables and proves it by
    /// compressing and decompressing a sample with it: bytes that zstd would refuse later, on a
    /// writer thread or while reading, are refused here.
    pub fn parse(bytes: &[u8]) -> Result<Dictionary> {
        let id = id_of(bytes)?;
        let damaged = |what: &str| {
            Error::invalid(format!(
                "dictionary {id} is damaged: zstd refuses its {what}"
            ))
        };
        // `DecoderDictionary::copy` panics where `try_create` returns None: ask first.
        DDict::try_create(bytes).ok_or_else(|| damaged("tables"))?;
        let dict = Dictionary {
            id,
            bytes: bytes.to_vec(),
            decoder: DecoderDictionary::copy(bytes),
        };
        let sample: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
        let packed = zstd::bulk::Compressor::with_dictionary(3, bytes)
            .and_then(|mut c| c.compress(&sample))
            .map_err(|_| damaged("tables for compression"))?;
        let back = dict
            .decompressor()
            .and_then(|mut d| d.decompress(&packed, sample.len()))
            .map_err(|_| damaged("tables for decompression"))?;
        if back != sample {
            return Err(damaged("round trip"));
        }
        Ok(dict)
    }

    /// The id recordings compressed with it name in their header.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The dictionary's bytes (zstd's dictionary format, as `tickreel dict train` writes them).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// A decompression context using this dictionary (its prepared form: no tables rebuilt).
    pub(crate) fn decompressor(&self) -> std::io::Result<zstd::bulk::Decompressor<'_>> {
        zstd::bulk::Decompressor::with_prepared_dictionary(&self.decoder)
    }
}

fn registry() -> &'static RwLock<HashMap<u16, Arc<Dictionary>>> {
    static R: OnceLock<RwLock<HashMap<u16, Arc<Dictionary>>>> = OnceLock::new();
    R.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Checks `bytes` ([`Dictionary::parse`]) and registers the dictionary under the id its header
/// names, which it returns. The same bytes again are a no-op; other bytes under an id already
/// registered are an [`Error::InvalidState`].
pub fn register(bytes: &[u8]) -> Result<u16> {
    let dict = Dictionary::parse(bytes)?;
    let id = dict.id;
    let mut r = registry().write();
    match r.get(&id) {
        Some(old) if old.bytes == dict.bytes => Ok(id),
        Some(_) => Err(Error::InvalidState(format!(
            "another dictionary is already registered as {id}: recordings written with it would no \
             longer read (give the new one another id: `tickreel dict train --id N`)"
        ))),
        None => {
            r.insert(id, Arc::new(dict));
            Ok(id)
        }
    }
}

/// The ids registered, in ascending order.
pub fn registered() -> Vec<u16> {
    let mut ids: Vec<u16> = registry().read().keys().copied().collect();
    ids.sort_unstable();
    ids
}

/// The error of a recording (or options) naming dictionary `id` when it is not registered.
pub fn missing(id: u16) -> Error {
    Error::Unsupported(format!(
        "zstd dictionary {id} is not registered: the recording is compressed with it; register \
         the same dictionary first (Rust `dictionary::register`, C `tickreel_dictionary_register`, \
         Java `Dictionaries.register`, the tool's `--dictionary FILE`)"
    ))
}

/// The dictionary for `id`: `None` for id 0 (no dictionary), [`missing`] if `id` is not
/// registered.
pub fn lookup(id: u16) -> Result<Option<Arc<Dictionary>>> {
    if id == 0 {
        return Ok(None);
    }
    registry()
        .read()
        .get(&id)
        .cloned()
        .map(Some)
        .ok_or_else(|| missing(id))
}

/// Trains a dictionary of at most `max_size` bytes from sample chunk payloads (uncompressed)
/// with zstd's trainer, and gives it id `id` (1..=65535). Bounded: at most
/// [`MAX_TRAINING_SAMPLES`] samples of [`MAX_TRAINING_BYTES`] in all; `max_size` within
/// [`MIN_DICTIONARY_BYTES`]..=[`MAX_DICTIONARY_BYTES`]. The result is checked as [`register`]
/// would check it.
pub fn train(samples: &[Vec<u8>], max_size: usize, id: u16) -> Result<Vec<u8>> {
    if id == 0 {
        return Err(Error::invalid(
            "dictionary id 0 is reserved for no dictionary",
        ));
    }
    if !(MIN_DICTIONARY_BYTES..=MAX_DICTIONARY_BYTES).contains(&max_size) {
        return Err(Error::invalid(format!(
            "a dictionary size of {max_size} bytes; it must be {}",
            crate::error::between(MIN_DICTIONARY_BYTES, MAX_DICTIONARY_BYTES)
        )));
    }
    let total: usize = samples.iter().map(Vec::len).sum();
    if samples.len() > MAX_TRAINING_SAMPLES || total > MAX_TRAINING_BYTES {
        return Err(Error::limit(format!(
            "{} samples of {total} bytes; training takes at most {MAX_TRAINING_SAMPLES} samples \
             of {MAX_TRAINING_BYTES} bytes",
            samples.len()
        )));
    }
    let mut dict = zstd::dict::from_samples(samples, max_size).map_err(|e| {
        Error::invalid(format!(
            "zstd could not train a dictionary from {} samples of {total} bytes: {e} (give more \
             or longer recordings, or a smaller size)",
            samples.len()
        ))
    })?;
    if dict.len() < 8 {
        return Err(Error::invalid("zstd trained an empty dictionary"));
    }
    dict[4..8].copy_from_slice(&u32::from(id).to_le_bytes());
    Dictionary::parse(&dict)?;
    Ok(dict)
}

/// The id `train` gives a dictionary when none is chosen: derived from its content, in
/// 32768..=65535 (ids below 32768 are left to operators who number their own).
pub fn derived_id(bytes: &[u8]) -> u16 {
    let h = xxhash_rust::xxh64::xxh64(bytes, 0);
    0x8000 | (h as u16 & 0x7FFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payload-like samples: varied but repetitive records.
    fn samples(seed: u64) -> Vec<Vec<u8>> {
        (0..400u64)
            .map(|s| {
                let mut rng = fastrand::Rng::with_seed(seed + s);
                (0..600)
                    .map(|i| {
                        if i % 5 == 0 {
                            rng.u8(..8)
                        } else {
                            [0x12, 0x80, 0x01, 0x7f, 0x33][i % 5]
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn trained_dictionaries_carry_their_id_and_register_under_it() {
        let d = train(&samples(1), 4096, 5151).unwrap();
        assert_eq!(id_of(&d).unwrap(), 5151);
        assert_eq!(register(&d).unwrap(), 5151);
        // again: harmless
        assert_eq!(register(&d).unwrap(), 5151);
        assert!(registered().contains(&5151));
        assert_eq!(lookup(5151).unwrap().unwrap().bytes(), &d[..]);
        // other bytes under the same id: refused
        let other = train(&samples(99), 2048, 5151).unwrap();
        assert_ne!(other, d);
        let e = register(&other).unwrap_err();
        assert!(matches!(e, Error::InvalidState(_)), "{e}");
        assert_eq!(lookup(0).unwrap().map(|d| d.id()), None);
    }

    #[test]
    fn a_missing_dictionary_is_named() {
        let e = lookup(31_999).unwrap_err();
        assert!(matches!(e, Error::Unsupported(_)), "{e}");
        assert!(
            e.to_string().contains("dictionary 31999 is not registered"),
            "{e}"
        );
    }

    #[test]
    fn crafted_dictionaries_are_refused() {
        let d = train(&samples(2), 4096, 600).unwrap();
        // not a dictionary at all
        assert!(matches!(
            register(b"raw bytes"),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            register(&[0u8; 4096]),
            Err(Error::InvalidArgument(_))
        ));
        // an id outside 1..=65535
        for id in [0u32, 65_536, u32::MAX] {
            let mut b = d.clone();
            b[4..8].copy_from_slice(&id.to_le_bytes());
            let e = register(&b).unwrap_err();
            assert!(
                e.to_string().contains(&format!("dictionary id {id}")),
                "{e}"
            );
        }
        // too small, too large
        assert!(matches!(register(&d[..100]), Err(Error::LimitExceeded(_))));
        let mut big = d.clone();
        big.resize(MAX_DICTIONARY_BYTES + 1, 0);
        assert!(matches!(register(&big), Err(Error::LimitExceeded(_))));
        // damaged entropy tables: refused, never a panic
        let mut refused = 0;
        for at in 8..d.len().min(200) {
            let mut b = d.clone();
            b[at] ^= 0xFF;
            b[4..8].copy_from_slice(&(1000 + at as u32).to_le_bytes());
            match register(&b) {
                Ok(_) => {}
                Err(e) => {
                    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
                    refused += 1;
                }
            }
        }
        assert!(refused > 0, "no damaged table was noticed");
        // training limits
        assert!(train(&samples(3), 10, 7).is_err());
        assert!(train(&samples(3), 4096, 0).is_err());
        assert!(matches!(
            train(&[b"ab".to_vec(), b"cd".to_vec()], 4096, 7),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn derived_ids_are_in_the_upper_half() {
        for s in 0..50u8 {
            let id = derived_id(&[s; 40]);
            assert!(id >= 0x8000);
        }
    }
}

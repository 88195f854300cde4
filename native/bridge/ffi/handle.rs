//! The handle table: C handles are tokens, not addresses.
//!
//! A handle given to C (`TickreelReader *` and friends) is a pointer-sized integer disguised as a
//! pointer to an incomplete type. tickreel never dereferences it: it decodes it into
//! `(generation, type tag, slot index)` and looks the key up in the bindings' one handle registry
//! ([`crate::shared::registry`], the same code as Java's handles, with its own table). Layout
//! ([`TokenLayout`]) on 64-bit targets (bit 63 on the left):
//!
//! ```text
//! | generation: 32 bits | type tag: 8 bits | slot index: 24 bits |
//! ```
//!
//! (32-bit targets: 12-bit generation, 6-bit tag, 14-bit index.)
//!
//! Guarantees, checked on every call:
//! - NULL is never a handle (generations start at 1); `*_free(NULL)` is a no-op.
//! - A handle of another type is rejected (`INVALID_HANDLE`): the tag must match the function's
//!   type and the slot's current occupant.
//! - A freed handle is rejected (`INVALID_HANDLE`) for ever, double frees included: freeing bumps
//!   the slot's generation, and a slot whose generation would wrap around is retired rather than
//!   reused, so a stale token can never match a later occupant.
//! - A value tickreel never returned (garbage, an uninitialised variable, a real pointer) is
//!   rejected unless its bits happen to equal those of a live handle of the right type: detected
//!   with high probability, not guaranteed.
//! - Freeing a handle while another thread is inside a call on it is memory-safe: the call holds
//!   its own reference and finishes on the object; calls that start after the free get
//!   `INVALID_HANDLE`. The object is destroyed when the last such call returns.

use std::sync::Arc;

use super::result::{FfiError, FfiResult};
use crate::shared::registry::{Key, Lookup, Registry};

pub(crate) use crate::shared::handle::HandleType;
use crate::shared::handle::TokenLayout;

const LAYOUT: TokenLayout = TokenLayout::NATIVE;
const TAG_MASK: usize = LAYOUT.max_tag() as usize;
const GEN_MAX: usize = LAYOUT.max_generation() as usize;

/// Most live handles at once.
pub(crate) const MAX_HANDLES: usize = LAYOUT.max_slots();

/// A handle type as C sees it: the opaque C type its handles point to. The neutral layer
/// (`crate::api`) declares the types and their tags; which C type stands for each is said here,
/// once, for every handle type.
pub(crate) trait COpaque: HandleType {
    /// The opaque C type the handle points to.
    type Opaque;
}

/// Implements [`COpaque`] for each handle type and lists their tags (`TAG_NAMES`), so that a
/// handle type is named once here.
macro_rules! opaque {
    ($($(#[$cfg:meta])* $t:ty => $c:ty,)*) => {
        $($(#[$cfg])* impl COpaque for $t {
            type Opaque = $c;
        })*

        /// Tags of every handle type, for messages about a handle of the wrong type.
        const TAG_NAMES: &[(u8, &str)] = &[
            $($(#[$cfg])* (<$t as HandleType>::TAG, <$t as HandleType>::NAME),)*
        ];
    };
}

opaque! {
    crate::api::batch::Batch => super::TickreelBatch,
    #[cfg(feature = "catalog")]
    crate::api::catalog::Catalog => super::TickreelCatalog,
    crate::api::engine::Engine => super::TickreelEngine,
    crate::api::engine::Recorder => super::TickreelRecorder,
    crate::api::engine_options::EngineOptions => super::TickreelEngineOptions,
    crate::api::events::Events => super::TickreelEvents,
    crate::api::ghost::Ghost => super::TickreelGhost,
    crate::api::ghost::GhostCursor => super::TickreelGhostCursor,
    crate::api::ghost::LiveDelta => super::TickreelLiveDelta,
    crate::api::ghost::GhostSet => super::TickreelGhostSet,
    crate::api::ghost::GoldSplits => super::TickreelGoldSplits,
    #[cfg(feature = "object")]
    crate::api::object::ObjectOptions => super::TickreelObjectOptions,
    #[cfg(feature = "object")]
    crate::api::object_live::LiveShipper => super::TickreelLiveShipper,
    crate::api::pending::Pending => super::TickreelPending,
    crate::api::playhead::Playhead => super::TickreelPlayhead,
    crate::api::reader::Reader => super::TickreelReader,
    crate::api::recorder_options::RecorderOptions => super::TickreelRecorderOptions,
    crate::api::reel_options::ReelOptions => super::TickreelReelOptions,
    crate::api::report_options::ReportOptions => super::TickreelReportOptions,
    crate::api::shadow::ShadowBuffer => super::TickreelShadowBuffer,
    crate::api::shadow_options::ShadowOptions => super::TickreelShadowOptions,
    crate::api::world_state::WorldState => super::TickreelWorldState,
    crate::api::writer::ReelWriter => super::TickreelReelWriter,
}

// Every tag fits the tag bits of the smallest layout (32-bit targets: tags 1 to 63), checked on
// every target, so that a new handle type cannot overflow into the generation on either width.
const _: () = {
    let mut i = 0;
    while i < TAG_NAMES.len() {
        assert!(TAG_NAMES[i].0 != 0 && TAG_NAMES[i].0 <= TokenLayout::BITS_32.max_tag());
        i += 1;
    }
};

/// The registry of C handles.
static REGISTRY: Registry = Registry::new(MAX_HANDLES, GEN_MAX as u64);

fn token(generation: usize, tag: u8, index: usize) -> usize {
    // a token of this target's layout fits its pointer width
    LAYOUT.pack(generation as u64, tag, index) as usize
}

fn split(token: usize) -> (usize, u8, usize) {
    let (generation, tag, index) = LAYOUT.unpack(token as u64);
    (generation as usize, tag, index)
}

fn tag_name(tag: u8) -> Option<&'static str> {
    TAG_NAMES.iter().find(|(t, _)| *t == tag).map(|(_, n)| *n)
}

/// Registers `obj` and returns its handle.
pub(crate) fn insert<T: COpaque>(obj: T) -> FfiResult<*mut T::Opaque> {
    debug_assert!(T::TAG != 0 && usize::from(T::TAG) <= TAG_MASK);
    let key = REGISTRY.insert(T::NAME, Arc::new(obj)).map_err(|full| {
        tickreel::Error::limit(format!("{} tickreel handles are live; free some", full.0))
    })?;
    let generation = usize::try_from(key.generation).expect("generations fit the token");
    Ok(std::ptr::without_provenance_mut(token(
        generation,
        T::TAG,
        key.index,
    )))
}

/// The registry key of a handle of type `T`, or why the token cannot be one.
fn key_of<T: COpaque>(handle: *const T::Opaque) -> FfiResult<Key> {
    let (generation, tag, index) = split(handle.addr());
    if tag != T::TAG {
        return Err(invalid::<T>(
            handle,
            match tag_name(tag) {
                Some(other) => Lookup::WrongType(other),
                None => Lookup::Unknown,
            },
        ));
    }
    Ok(Key {
        index,
        generation: generation as u64,
    })
}

/// The error for a token that does not name a live handle of type `T`.
fn invalid<T: COpaque>(handle: *const T::Opaque, why: Lookup) -> FfiError {
    let why = match why {
        Lookup::Unknown => format!("is not a tickreel {} handle", T::NAME),
        Lookup::Removed => format!("is a {} handle that was already freed", T::NAME),
        Lookup::WrongType(other) => format!("is a {other} handle, not a {}", T::NAME),
    };
    FfiError::InvalidHandle(format!("{handle:p} {why}"))
}

/// The object behind a live handle of type `T`.
pub(crate) fn get<T: COpaque>(handle: *mut T::Opaque) -> FfiResult<Arc<T>> {
    if handle.is_null() {
        return Err(FfiError::Null(T::NAME));
    }
    REGISTRY
        .get::<T>(key_of::<T>(handle)?)
        .map_err(|why| invalid::<T>(handle, why))
}

/// Unregisters a handle and returns its object (`None` for NULL). The caller drops it, outside
/// the table lock; the object dies when the last call still using it returns.
pub(crate) fn remove<T: COpaque>(handle: *mut T::Opaque) -> FfiResult<Option<Arc<T>>> {
    if handle.is_null() {
        return Ok(None);
    }
    REGISTRY
        .remove::<T>(key_of::<T>(handle)?)
        .map(Some)
        .map_err(|why| invalid::<T>(handle, why))
}

/// Number of live handles of every type (handles returned by `*_new`/`*_open`/`*_create` and
/// not yet freed). Useful to check, in tests, that a program frees everything it creates.
///
/// Thread safety: any thread; the count may be outdated by the time it returns if other threads
/// create or free handles meanwhile.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_handle_count() -> usize {
    crate::shared::panic::catch(|| REGISTRY.live()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Thing(u32);
    struct ThingOpaque;
    impl HandleType for Thing {
        // the highest tags, which no real handle type uses (64-bit layout)
        const TAG: u8 = TAG_MASK as u8;
        const NAME: &'static str = "thing";
    }
    impl COpaque for Thing {
        type Opaque = ThingOpaque;
    }
    struct Other;
    impl HandleType for Other {
        const TAG: u8 = TAG_MASK as u8 - 1;
        const NAME: &'static str = "other";
    }
    impl COpaque for Other {
        type Opaque = ThingOpaque;
    }

    fn is_invalid<T>(r: FfiResult<T>, what: &str) {
        match r {
            Err(FfiError::InvalidHandle(m)) => assert!(m.contains(what), "{m}"),
            Err(e) => panic!("expected an invalid handle, got {e:?}"),
            Ok(_) => panic!("expected an invalid handle, got a live object"),
        }
    }

    #[test]
    fn tokens_round_trip_and_are_never_null() {
        assert_eq!(split(token(1, 3, 0)), (1, 3, 0));
        assert_eq!(
            split(token(GEN_MAX, TAG_MASK as u8, MAX_HANDLES - 1)),
            (GEN_MAX, TAG_MASK as u8, MAX_HANDLES - 1)
        );
        assert_ne!(token(1, 0, 0), 0);
    }

    #[test]
    fn stale_wrong_type_and_garbage_handles_are_rejected() {
        let h = insert(Thing(7)).unwrap();
        assert_eq!(get::<Thing>(h).unwrap().0, 7);
        is_invalid(get::<Other>(h), "not a tickreel other handle");
        let garbage: *mut ThingOpaque = std::ptr::without_provenance_mut(token(3, 0, 0x1678)); // tag 0: none
        is_invalid(get::<Thing>(garbage), "not a tickreel thing handle");
        // Free while a "call" still holds the object: the object stays alive for that call.
        let held = get::<Thing>(h).unwrap();
        assert!(remove::<Thing>(h).unwrap().is_some());
        assert_eq!(held.0, 7);
        is_invalid(get::<Thing>(h), "already freed");
        is_invalid(remove::<Thing>(h), "already freed");
        // The slot is reused with a new generation; the stale token still fails.
        let h2 = insert(Thing(8)).unwrap();
        is_invalid(get::<Thing>(h), "already freed");
        assert_eq!(get::<Thing>(h2).unwrap().0, 8);
        assert!(remove::<Thing>(h2).unwrap().is_some());
        assert!(remove::<Thing>(std::ptr::null_mut()).unwrap().is_none());
        assert!(matches!(
            get::<Thing>(std::ptr::null_mut()),
            Err(FfiError::Null("thing"))
        ));
    }

    /// Every handle type of the `opaque!` table has its own tag (a clash would let one type's
    /// handle pass for another's).
    #[test]
    fn every_handle_type_has_its_own_tag() {
        let mut tags: Vec<u8> = TAG_NAMES.iter().map(|(t, _)| *t).collect();
        tags.sort_unstable();
        tags.dedup();
        assert_eq!(tags.len(), TAG_NAMES.len(), "{TAG_NAMES:?}");
        assert_eq!(
            tag_name(crate::api::reel_options::ReelOptions::TAG),
            Some("reel options")
        );
    }

    #[test]
    fn slots_at_the_last_generation_are_retired() {
        let h = insert(Thing(1)).unwrap();
        let (_, _, index) = split(h.addr());
        REGISTRY.set_generation(index, GEN_MAX as u64);
        let h = std::ptr::without_provenance_mut::<ThingOpaque>(token(GEN_MAX, Thing::TAG, index));
        assert!(remove::<Thing>(h).unwrap().is_some());
        assert!(
            !REGISTRY.is_free(index),
            "a wrapped slot must not be reused"
        );
        is_invalid(get::<Thing>(h), "already freed");
    }
}

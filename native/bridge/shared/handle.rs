//! What makes a type of the neutral layer (`crate::api`) a handle type: its tag and its name, the
//! same in every binding. How a binding encodes a handle is its own (`crate::ffi::handle`: a
//! pointer-sized token to an opaque C type, which it names there for each type;
//! `crate::jni::handles`: a positive `long`); both keep the objects in [`super::registry`].

use std::any::Any;

/// A Rust type that C and Java see through a handle.
pub(crate) trait HandleType: Any + Send + Sync + Sized {
    /// Type tag in a C token, nonzero and unique per type, at most the C layout's tag mask
    /// (`crate::ffi::handle` checks every tag at compile time).
    const TAG: u8;
    /// What C and Java call it, for messages.
    const NAME: &'static str;
}

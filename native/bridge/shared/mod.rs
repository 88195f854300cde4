//! What the C ABI ([`crate::ffi`]) and the JNI glue ([`crate::jni`]) share, written once: the panic
//! guard every entry point runs in ([`panic`]), what makes a type a handle type ([`handle`]) and the
//! handle registry behind every handle ([`registry`]). Each binding only encodes a registry key as its own token (a pointer-sized C
//! handle with a type tag, a positive Java `long`) and turns failures into its own idiom.

pub mod block_state;
pub(crate) mod handle;
pub(crate) mod option_names;
pub(crate) mod panic;
pub(crate) mod registry;
pub(crate) mod terrain;
pub(crate) mod threads;

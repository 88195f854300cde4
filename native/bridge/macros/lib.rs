//! `#[bridge_fn(...)]`: marks a function of `native/bridge/api/` as an operation of the binding
//! surface. The attribute changes nothing for rustc (the function compiles as written); the root
//! `build.rs` reads it (with `native/bridge/codegen/`) and generates, from the function's Rust
//! signature, the `extern "C"` entry point, the JNI entry point with its `RegisterNatives` entry,
//! and the Java `native` declaration. Arguments (all optional):
//!
//! - `c = "tickreel_x_y"`: the C name (no C entry point without it);
//! - `java = "xY"`: the Java name in `NativeBridge` (no JNI entry point without it);
//! - `c_out = "out_x"`: the out-pointer a C caller gets a non-`()` result through;
//!   `c_out_type = "TickreelX"` its C type where the generator cannot derive it;
//!   `c_out_optional`: the out-pointer may be NULL;
//! - `java_fill`: Java passes an array the result is written into (no allocation per call);
//! - `c_out_array = "states"`: the result is a list the C caller receives in
//!   `(states, capacity, out_count)` (count/capacity convention), of `c_out_type`; with
//!   `c_out = "out_tick"` and `c_out_extra_type = "u32"`, one more out-pointer after them.

use proc_macro::TokenStream;

/// Marks a bridge operation; see the crate documentation. Returns the item unchanged.
#[proc_macro_attribute]
pub fn bridge_fn(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Marks a record of `native/bridge/api/`: a struct a C or Java caller receives, from which the
/// root `build.rs` generates the C struct and both conversions (`native/bridge/codegen/records.rs`).
/// Arguments: `c = "TickreelX"` (the C name), `what = "..."` (a list's items, for messages) and
/// optionally `of = "path::Type"`: the declaration describes that type's fields, and the item is
/// removed (it is only read by the generator).
#[proc_macro_attribute]
pub fn bridge_struct(args: TokenStream, item: TokenStream) -> TokenStream {
    let names_of = args
        .into_iter()
        .any(|t| matches!(t, proc_macro::TokenTree::Ident(i) if i.to_string() == "of"));
    if names_of { TokenStream::new() } else { item }
}

//! Tests of the generator on small api modules (compiled into the library's tests only; the
//! generated code of the real api is checked by compiling it and by the header and Java tests).

use super::{COut, Op, c, jni, read_api};

/// Writes `src` as the api module `demo` in a fresh directory and reads it.
fn read(src: &str) -> (tempfile::TempDir, Result<Vec<Op>, String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("demo.rs"), src).unwrap();
    std::fs::write(dir.path().join("mod.rs"), "// not an api module").unwrap();
    let ops = read_api(dir.path());
    (dir, ops)
}

const DEMO: &str = r#"
use crate::api::New;

/// Opens a thing.
///
/// (Java: a handle, never 0.)
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_thing_open", c_out = "out_thing", java = "thingOpen")]
pub fn open(path: &Path, size: u32) -> tickreel::Result<New<Thing>> {
    Thing::open(path, size)
}

/// Shakes a thing.
#[bridge_fn(c = "tickreel_thing_shake")]
pub fn shake(thing: &Thing, hard: bool) {}

/// Java only.
#[bridge_fn(java = "thingBytes")]
pub fn bytes(thing: &Thing, data: &[u8]) -> Vec<u8> {}

/// Not an operation: no attribute.
pub fn helper() {}
"#;

#[test]
fn operations_are_read_with_their_names_types_and_outputs() {
    let (_dir, ops) = read(DEMO);
    let ops = ops.unwrap();
    let names: Vec<&str> = ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        ["open", "shake", "bytes"],
        "helper has no #[bridge_fn]"
    );
    let open = &ops[0];
    assert_eq!(open.c.as_deref(), Some("tickreel_thing_open"));
    assert_eq!(open.java.as_deref(), Some("thingOpen"));
    assert!(open.fallible);
    match &open.c_out {
        COut::Value { name, ty, optional } => {
            assert_eq!(
                (name.as_str(), ty.as_str(), *optional),
                ("out_thing", "*mut TickreelThing", false)
            );
        }
        _ => panic!("open returns through one out-pointer"),
    }
    assert_eq!(open.docs[0], " Opens a thing.");
    assert!(ops[1].ret.is_none() && !ops[1].fallible);
    assert!(ops[2].c.is_none());
}

#[test]
fn c_entry_points_follow_the_rust_types() {
    let (dir, ops) = read(DEMO);
    let src = c::emit(dir.path(), &ops.unwrap()).unwrap();
    // A path is a C string (so the function is unsafe, with a generated # Safety section); a
    // handle is a typed opaque pointer; the out-pointer comes last.
    assert!(
        src.contains(
            "pub unsafe extern \"C\" fn tickreel_thing_open(path: *const c_char, size: u32, \
         out_thing: *mut *mut TickreelThing) -> TickreelResult"
        ),
        "{src}"
    );
    assert!(src.contains("#[doc = \" # Safety\"]"));
    assert!(
        !src.contains("(Java:"),
        "C documentation leaves out the notes on the Java form"
    );
    assert!(src.contains("#[doc = \" Thread safety: any thread.\"]"));
    assert!(src.contains("`path` must be NULL or a NUL-terminated string"));
    // Only plain values and handles: a safe function, no # Safety section needed.
    assert!(src.contains(
        "pub extern \"C\" fn tickreel_thing_shake(thing: *mut TickreelThing, hard: bool) -> TickreelResult"
    ), "{src}");
    assert!(
        !src.contains("thingBytes") && !src.contains("fn bytes"),
        "Java-only operations have no C entry point"
    );
}

#[test]
fn jni_entry_points_take_their_signatures_from_the_traits() {
    let (dir, ops) = read(DEMO);
    let src = jni::emit(dir.path(), &ops.unwrap()).unwrap();
    // No JNI descriptor is spelled: each comes from the declared type's JniArg / JniResult.
    assert!(src.contains(
        "crate::jni::method(\"thingOpen\", &signature(&[<& 'static Path as JniArg>::SIG, <u32 as JniArg>::SIG], <New < Thing > as JniResult>::SIG)"
    ), "{src}");
    assert!(src.contains("JavaDecl { name: \"thingBytes\", params: &[(\"thing\", <& 'static Thing as JniArg>::JAVA), (\"data\", <& 'static [u8] as JniArg>::JAVA)]"), "{src}");
    assert!(
        !src.contains("tickreel_thing_shake") && !src.contains("jni_shake"),
        "C-only operations have no JNI entry point"
    );
    assert!(!src.contains("\"(J"), "no hand-typed descriptor");
}

#[test]
fn a_direct_parameter_gets_a_pinned_variant_in_java() {
    let (dir, ops) = read(
        "/// Feeds a thing.\n#[bridge_fn(c = \"tickreel_thing_feed\", java = \"thingFeed\", \
         direct = \"food\")]\npub fn feed(thing: &Thing, food: &[u8]) {}",
    );
    let src = jni::emit(dir.path(), &ops.unwrap()).unwrap();
    // The ByteBuffer form, and the pinned one: a pin's handle stands for the buffer.
    assert!(src.contains("crate::jni::method(\"thingFeed\", &signature(&[<& 'static Thing as JniArg>::SIG, crate::jni::convert::DIRECT_SIG]"), "{src}");
    assert!(src.contains("crate::jni::method(\"thingFeedPinned\", &signature(&[<& 'static Thing as JniArg>::SIG, crate::jni::pinned::PINNED_SIG]"), "{src}");
    assert!(src.contains("JavaDecl { name: \"thingFeedPinned\", params: &[(\"thing\", <& 'static Thing as JniArg>::JAVA), (\"food\", \"long\"), (\"foodOffset\", \"int\"), (\"foodLength\", \"int\")]"), "{src}");
    assert!(
        src.contains(
            "let food_ = crate::jni::pinned::pinned_bytes(food, food_offset, food_len, \"food\")?;"
        ),
        "{src}"
    );
    assert!(src.contains("let food_ = crate::jni::convert::direct_bytes(env, food, food_offset, food_len, \"food\")?;"), "{src}");
    // Both call the one operation.
    assert_eq!(src.matches("crate::api::demo::feed(").count(), 2, "{src}");
}

const SLICES: &str = r#"
/// Weighs things.
#[bridge_fn(c = "tickreel_thing_weigh", c_out = "out_count", java = "thingWeigh")]
pub fn weigh(thing: &Thing, ids: &[u32], out: &mut [f64], scale: f64) -> tickreel::Result<u32> {}
"#;

/// `&[T]` is a C `(pointer, length)` read in place; `&mut [T]` a caller's buffer written in place
/// (passed `&mut`), in Java converted after every other argument and released before the result.
#[test]
fn slice_parameters_are_a_pointer_and_a_length() {
    let (dir, ops) = read(SLICES);
    let ops = ops.unwrap();
    let src = c::emit(dir.path(), &ops).unwrap();
    assert!(
        src.contains(
            "pub unsafe extern \"C\" fn tickreel_thing_weigh(thing: *mut TickreelThing, \
             ids: *const u32, ids_len: usize, out: *mut f64, out_len: usize, scale: f64, \
             out_count: *mut u32) -> TickreelResult"
        ),
        "{src}"
    );
    assert!(
        src.contains("`ids` must point to `ids_len` readable `u32`s"),
        "{src}"
    );
    assert!(
        src.contains("`out` must point to `out_len` writable `f64`s"),
        "{src}"
    );
    assert!(
        src.contains(
            "let mut out_ = unsafe { <& 'static mut [f64] as CArg>::store((out, out_len), \"out\") }?;"
        ),
        "{src}"
    );
    assert!(
        src.contains("crate::api::demo::weigh(&thing_, &ids_, &mut out_, scale_)"),
        "{src}"
    );
    let src = jni::emit(dir.path(), &ops).unwrap();
    let at = |needle: &str| {
        src.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing:\n{src}"))
    };
    // The buffer last (after `scale`, declared after it), dropped before the result crosses.
    assert!(at("let scale_ =") < at("let mut out_ = <& 'static mut [f64] as JniArg>::store"));
    assert!(at("let r = crate::api::demo::weigh(") < at("drop(out_);"));
    assert!(at("drop(out_);") < at("JniResult::into_jni(r, env)"));
    assert!(
        src.contains("(\"out\", <& 'static mut [f64] as JniArg>::JAVA)"),
        "{src}"
    );
    assert_eq!(
        <&'static mut [f64] as crate::jni::convert::JniArg>::JAVA,
        "double[]"
    );
    assert_eq!(
        <&'static [u32] as crate::jni::convert::JniArg>::JAVA,
        "int[]"
    );
}

#[test]
fn what_cannot_be_generated_is_refused_with_a_reason() {
    let (_d, ops) = read("#[bridge_fn(c = \"tickreel_x\")]\npub fn x(v: &Thing) -> u32 { 0 }");
    let e = ops.err().unwrap();
    assert!(e.contains("c_out"), "{e}");
    let (_d, ops) = read("#[bridge_fn(c = \"tickreel_x\", color = \"red\")]\npub fn x() {}");
    assert!(ops.err().unwrap().contains("unknown bridge_fn argument"));
    let (dir, ops) = read("#[bridge_fn(c = \"tickreel_x\")]\npub fn x(v: (u8, u8)) {}");
    let e = c::emit(dir.path(), &ops.unwrap()).err().unwrap();
    assert!(e.contains("no C form for parameter type"), "{e}");
}

/// The header index lists every function under its area, at the line of the area's first one.
#[test]
fn header_index_points_at_each_area() {
    let header = "/*\n * top\n */\n\n#define TICKREEL_X 1\n\ntypedef struct TickreelA {\n    int a;\n} TickreelA;\n\n/**\n * doc\n */\nsize_t tickreel_last_error(char *buf, size_t len);\n\nTickreelResult tickreel_batch_new(struct TickreelBatch **out);\n\nTickreelResult tickreel_batch_free(struct TickreelBatch *b);\n\nTickreelResult tickreel_widget_spin(void);\n";
    let out = super::index::with_index(header);
    let lines: Vec<&str> = out.lines().collect();
    let line_of = |needle: &str| lines.iter().position(|l| l.starts_with(needle)).unwrap() + 1;
    assert!(out.starts_with("/*\n * top\n */\n\n/*\n * Index"), "{out}");
    let structs = line_of("typedef struct TickreelA");
    assert!(
        out.contains(&format!("handles and structs from line {structs};")),
        "{out}"
    );
    let errors = line_of("size_t tickreel_last_error");
    assert!(
        out.contains(&format!(
            "Errors and the library: line {errors}\n *      tickreel_last_error\n"
        )),
        "{out}"
    );
    let batch = line_of("TickreelResult tickreel_batch_new");
    assert!(
        out.contains(&format!(
            "(TickreelBatch): line {batch}\n *      tickreel_batch_new, tickreel_batch_free\n"
        )),
        "{out}"
    );
    // A prefix of no known area is an area of its own.
    let widget = line_of("TickreelResult tickreel_widget_spin");
    assert!(
        out.contains(&format!(" *   widget: line {widget}\n")),
        "{out}"
    );
    assert!(
        out.ends_with(header.split_at(header.find("#define").unwrap()).1),
        "{out}"
    );
}

/// The header by area: each area's section, its types (those its functions use first, and the
/// types those contain), then its functions; constants stay at the top.
#[test]
fn header_types_go_to_the_first_area_that_uses_them() {
    let header = "#define TICKREEL_X 1\n\ntypedef struct TickreelPose {\n    double x;\n} TickreelPose;\n\ntypedef struct TickreelBatch TickreelBatch;\n\ntypedef struct TickreelSample {\n    struct TickreelPose pose;\n} TickreelSample;\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif // __cplusplus\n\nsize_t tickreel_last_error(char *buf, size_t len);\n\nTickreelResult tickreel_batch_new(struct TickreelBatch **out);\n\nTickreelResult tickreel_ghost_sample(struct TickreelSample *out);\n\nTickreelResult tickreel_batch_pose(struct TickreelBatch *b, const struct TickreelPose *p);\n\n#ifdef __cplusplus\n}  // extern \"C\"\n#endif  // __cplusplus\n\n#endif\n";
    let out = super::areas::by_area(header);
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing:\n{out}"))
    };
    assert!(at("#define TICKREEL_X") < at("/* ---- Errors and the library ---- */"));
    assert!(at("/* ---- Errors") < at("size_t tickreel_last_error"));
    let batch = at("/* ---- Tick batches (TickreelBatch) ---- */");
    let ghosts = at("/* ---- Ghosts");
    assert!(at("size_t tickreel_last_error") < batch);
    // TickreelPose: first used by a batch function, so in the batch area, before TickreelSample
    // (a ghost type that contains it).
    assert!(
        batch < at("typedef struct TickreelPose") && at("typedef struct TickreelPose") < ghosts
    );
    assert!(batch < at("typedef struct TickreelBatch TickreelBatch;"));
    assert!(at("TickreelResult tickreel_batch_pose") < ghosts);
    assert!(
        ghosts < at("typedef struct TickreelSample")
            && at("typedef struct TickreelSample") < at("TickreelResult tickreel_ghost_sample")
    );
    assert!(out.ends_with("#endif  // __cplusplus\n\n#endif\n"), "{out}");
    // Every block is kept, once.
    assert_eq!(out.matches("typedef struct").count(), 3);
    assert_eq!(out.matches("TickreelResult tickreel_").count(), 3);
}

const RECORDS: &str = r#"
/// A thing's counters.
#[bridge_struct(c = "TickreelThingStats", what = "thing stats")]
pub struct ThingStats<'a> {
    /// Shakes so far.
    pub shakes: u64,
    /// The last tick, if any.
    pub last_tick: Option<u32>,
    /// The label.
    pub label: &'a [u8],
    /// Where.
    pub at: TickreelBlockState,
    /// Which blocks.
    pub blocks: &'a [TickreelBlockState],
}

/// Counters of the core's type, read by name.
#[bridge_struct(c = "TickreelCoreStats", of = "tickreel::CoreStats")]
pub struct CoreStatsFields {
    /// Open.
    pub open: bool,
    /// Resident.
    pub resident: usize,
}

/// A reading with a float.
#[bridge_struct(c = "TickreelLap")]
pub struct Lap {
    /// Counted.
    pub counted: bool,
    /// The lap.
    pub lap: u32,
    /// The best lap, if any.
    pub best: Option<u32>,
    /// Seconds.
    pub seconds: f64,
}
"#;

#[test]
fn a_record_is_declared_once_for_c_and_java() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("demo.rs"), RECORDS).unwrap();
    let records = super::records::read(dir.path()).unwrap();
    assert_eq!(records.len(), 3);
    let c = super::records::emit_c(&records);
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let c = squeeze(&c);
    // An option is `has_x` then `x`; bytes are a pointer and a length; numbers cast to the
    // declared C type.
    assert!(
        c.contains(
            "pub struct TickreelThingStats { #[doc = \" Shakes so far.\"] pub shakes: u64, \
         #[doc = \" `last_tick` is set.\"] pub has_last_tick: bool, \
         #[doc = \" The last tick, if any.\"] pub last_tick: u32, \
         #[doc = \" The label.\"] pub label: *const u8, \
         #[doc = \" Bytes at `label`.\"] pub label_len: usize, \
         #[doc = \" Where.\"] pub at: TickreelBlockState, \
         #[doc = \" Which blocks.\"] pub blocks: *const TickreelBlockState, \
         #[doc = \" Their number.\"] pub block_count: usize, }"
        ),
        "{c}"
    );
    assert!(c.contains("impl CRecord for crate::api::demo::ThingStats<'_>"));
    assert!(
        c.contains("has_last_tick: s.last_tick.is_some(), last_tick: s.last_tick.unwrap_or(0),")
    );
    // Bytes and lists are NULL when empty; a C struct is copied as it is.
    assert!(c.contains(
        "label: if s.label.is_empty() { std::ptr::null() } else { s.label.as_ptr() }, \
         label_len: s.label.len(), at: s.at,"
    ));
    assert!(c.contains(
        "blocks: if s.blocks.is_empty() { std::ptr::null() } else { s.blocks.as_ptr() }, \
         block_count: s.blocks.len(),"
    ));
    assert!(c.contains("const WHAT: &'static str = \"thing stats\";"));
    // `of`: the conversions are for the core's type, read by name.
    assert!(c.contains("impl CResult for tickreel::CoreStats"));
    assert!(c.contains("open: s.open, resident: s.resident as usize,"));
    // Java: only records whose every field is a number; an absent option is -1.
    let j = squeeze(&super::records::emit_jni(&records));
    assert!(!j.contains("ThingStats"));
    assert!(j.contains("impl JavaRecord for tickreel::CoreStats { const LONGS: usize = 2;"));
    assert!(j.contains("out.extend_from_slice(&[i64::from(s.open), s.resident as i64]);"));
    // A record with a float fills Java's `double[]`, its fields in declaration order.
    assert!(!j.contains("impl JavaRecord for crate::api::demo::Lap"));
    assert!(j.contains(
        "impl JniFill for crate::api::demo::Lap { type Array = ::jni::sys::jdoubleArray; \
         const ARRAY_SIG: &'static str = \"[D\";"
    ));
    assert!(j.contains(
        "fill_doubles(env, out, &[f64::from(u8::from(s.counted)), s.lap as u32 as f64, \
         s.best.map_or(-1.0, |v| v as f64), s.seconds])"
    ));
    assert!(j.contains(
        "impl JniResult for crate::api::demo::Lap { type Jni = ::jni::sys::jobject; \
         const SIG: &'static str = \"[D\";"
    ));
    assert!(j.contains("double_array(env, &[f64::from(u8::from(s.counted)), s.lap as u32 as f64,"));
    assert!(c.contains("pub struct TickreelLap {"));
    // A field without a C form is refused, naming it.
    std::fs::write(
        dir.path().join("demo.rs"),
        "#[bridge_struct(c = \"TickreelX\")]\npub struct X { pub name: String }\n",
    )
    .unwrap();
    let err = super::records::read(dir.path()).err().unwrap();
    assert!(err.contains("demo::X.name: no C form"), "{err}");
}

/// The C constants are the format modules' literals with their docs, each group's first with
/// the field it is for; a range's ends are left out, and a constant that is not a literal is
/// refused.
#[test]
fn constants_are_read_from_the_format() {
    let format = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("native/core/src/format");
    for f in super::constants::sources() {
        assert!(format.join(f).is_file(), "{f}");
    }
    let s = super::constants::emit_c(&format).unwrap();
    let first = "#[doc = \" `TickreelEvent.kind` (the kind byte of the format):\"]\n    \
                 #[doc = \" An entity appeared.\"]\n    \
                 pub const TICKREEL_EVENT_ENTITY_ADD: u32 = 1;\n";
    assert!(s.contains(first), "{s}");
    assert!(s.contains("pub const TICKREEL_EVENT_CUSTOM: u32 = 128;"));
    assert!(s.contains("pub const TICKREEL_EVENT_CUSTOM_AT: u32 = 73;"));
    assert!(s.contains("pub const TICKREEL_SLOT_BODY: u32 = 6;"));
    assert!(s.contains("pub const TICKREEL_CHANNEL_SYSTEM: u32 = 3;"));
    assert!(s.contains("assert!(TICKREEL_HAND_OFF == tickreel::format::hand::OFF as u32);"));
    assert!(!s.contains("EXTENSION_FIRST") && !s.contains("TICKREEL_EVENT_LAST"));

    let dir = tempfile::tempdir().unwrap();
    for f in super::constants::sources() {
        let text = "pub mod kind { pub const A: u8 = 1; }\npub mod world_kind {}\n\
                    pub mod hand {} pub mod slot {} pub mod channel { pub const B: u32 = A; }";
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    let e = super::constants::emit_c(dir.path()).unwrap_err();
    assert!(e.contains("`channel::B` is not an integer literal"), "{e}");
}

/// The result codes' list, C names and kind mapping are generated from `enum TickreelResult`:
/// every variant is listed and named, only the codes 1 to 99 stand for core error kinds, and a
/// variant without a literal value is refused.
#[test]
fn result_codes_are_generated_from_their_enum() {
    let text =
        "pub enum TickreelResult { Ok = 0, Io = 1, LimitExceeded = 4, BufferTooSmall = 103 }";
    let s = super::constants::emit_results(text).unwrap();
    assert!(s.contains("pub(crate) const ALL: [Self; 4] = ["), "{s}");
    assert!(
        s.contains("Self::LimitExceeded => c\"TICKREEL_RESULT_LIMIT_EXCEEDED\","),
        "{s}"
    );
    assert!(
        s.contains("Self::BufferTooSmall => c\"TICKREEL_RESULT_BUFFER_TOO_SMALL\","),
        "{s}"
    );
    assert!(
        s.contains("tickreel::error::ErrorKind::Io => Self::Io,"),
        "{s}"
    );
    assert!(s.contains("tickreel::error::ErrorKind::LimitExceeded => Self::LimitExceeded,"));
    assert!(
        !s.contains("ErrorKind::Ok") && !s.contains("ErrorKind::BufferTooSmall"),
        "{s}"
    );
    let e = super::constants::emit_results("pub enum TickreelResult { Ok = 0, Io }").unwrap_err();
    assert!(
        e.contains("`TickreelResult::Io` has no integer value"),
        "{e}"
    );
    assert!(super::constants::emit_results("pub enum Other { A = 1 }").is_err());
}

//! The JNI glue behind `java-bindings/` (package `io.tickreel`, possibly relocated by a plugin).
//!
//! Thin by rule: argument checks, handle look-ups, copying between Java and Rust, and turning
//! errors into Java exceptions. No logic of its own; everything real lives in the core.
//!
//! # Binding without JNI name mangling
//!
//! A plugin may shade tickreel and relocate `io.tickreel` into its own package, so the symbol names
//! `Java_io_tickreel_...` would no longer match. Nothing here is exported under such a name. The
//! Java loader instead tells [`JNI_OnLoad`] which class to bind: before `System.load` it sets the
//! system property `tickreel.jni.bridge.<id of the loading thread>` to the bridge class's binary
//! name (slash-separated, as it is *after* relocation). `JNI_OnLoad` runs on that thread, reads the
//! property, finds the class (during `JNI_OnLoad`, `FindClass` resolves through the class loader
//! that is loading the library, i.e. the plugin's) and binds every native method with
//! `RegisterNatives`. The exception class `TickreelException` is looked up in the same package,
//! checked, and remembered by name only: each throw finds it again through the calling class's
//! loader. No global reference is kept, so nothing process-wide holds the plugin's class loader
//! (a global reference to one of its classes would keep the loader, and so the plugin, alive for
//! ever after a reload). Native method signatures mention only JDK types, so they are the
//! same whatever the package is called.
//!
//! Each plugin extracts the library to its own unique temporary file, so each class loader gets its
//! own instance of this library, with its own statics, handle registry and `JNI_OnLoad`.
//!
//! # Errors
//!
//! Every entry point runs inside [`entry`], which catches panics and converts failures:
//! a closed handle and [`Error::InvalidState`] become `IllegalStateException`, bad arguments and
//! [`Error::InvalidArgument`] become `IllegalArgumentException`, everything else (I/O, corrupt or
//! truncated data, limits, ...) becomes `TickreelException` with a kind code
//! (see [`kind_code`]); a panic becomes `TickreelException` of kind `INTERNAL`.

pub(crate) mod convert;
mod generated;
mod ghost;
mod handles;
mod idiom;
#[cfg(feature = "object")]
mod object;
pub(crate) mod pinned;
mod playhead;
mod reader;
mod recorder;
mod shadow;
mod slices;
mod terrain;
mod world_state;

use std::any::Any;
use std::ffi::c_void;
use std::sync::Mutex;

use jni::objects::{JString, JThrowable, JValue};
use jni::sys::{JNI_ERR, JNI_VERSION_1_8, jint, jlong, jobject};
use jni::{JNIEnv, JavaVM, NativeMethod};

use crate::shared::panic::catch;
use handles::HandleError;
use tickreel::error::Error;

/// Version of the contract between the Java classes and this library. The Java loader refuses a
/// library whose version differs (a jar and a library from different builds).
pub const ABI_VERSION: jint = crate::api::library::ABI_VERSION;

/// Prefix of the system property naming the bridge class, followed by the loading thread's id.
pub const BRIDGE_PROPERTY_PREFIX: &str = "tickreel.jni.bridge.";

/// Simple name of the bridge class's exception type, looked up in the bridge's package.
const EXCEPTION_SIMPLE_NAME: &str = "TickreelException";

/// What `JNI_OnLoad` found.
struct Bound {
    /// The binary name (slash-separated, possibly relocated) of the `TickreelException` class.
    /// A name, not a class reference: see the module documentation.
    exception: String,
}

/// Set by `JNI_OnLoad`, cleared by `JNI_OnUnload`.
static BOUND: Mutex<Option<Bound>> = Mutex::new(None);

/// The bound exception class's name, if the library is bound.
fn exception_class() -> Option<String> {
    BOUND
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map(|b| b.exception.clone())
}

/// Why a call failed, before it becomes a Java exception.
#[derive(Debug)]
pub(crate) enum Failure {
    Core(Error),
    Handle(HandleError),
    Arg(String),
    Jni(jni::errors::Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}
impl From<HandleError> for Failure {
    fn from(e: HandleError) -> Self {
        Failure::Handle(e)
    }
}
impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure::Jni(e)
    }
}

pub(crate) type Res<T> = std::result::Result<T, Failure>;

/// An invalid-argument failure.
pub(crate) fn bad_arg(msg: impl Into<String>) -> Failure {
    Failure::Arg(msg.into())
}

/// Runs one entry point: catches panics and turns failures into Java exceptions.
pub(crate) fn entry<'l, T: convert::JavaType>(
    env: &mut JNIEnv<'l>,
    f: impl FnOnce(&mut JNIEnv<'l>) -> Res<T>,
) -> T {
    match catch(|| f(env)) {
        Ok(Ok(v)) => v,
        Ok(Err(failure)) => {
            throw(env, failure);
            T::FALLBACK
        }
        Err(msg) => {
            throw_tickreel(
                env,
                KIND_INTERNAL,
                &format!("internal error in tickreel (please report): {msg}"),
            );
            T::FALLBACK
        }
    }
}

/// Kind code of a `TickreelException` for an error: the core's one number for it
/// ([`Error::code`]), the same as the C result code. `TickreelException.Kind` spells the same
/// numbers (a test in `crate::codes` checks it).
pub fn kind_code(e: &Error) -> jint {
    e.code() as jint
}

/// Kind code of an internal failure (a panic, an unexpected JNI error): C's
/// `TICKREEL_RESULT_PANIC`, Java's `Kind.INTERNAL`.
pub(crate) const KIND_INTERNAL: jint = crate::ffi::result::TickreelResult::Panic as jint;

fn throw(env: &mut JNIEnv<'_>, failure: Failure) {
    // A Java exception raised by a JNI call (out of memory, ...) is already pending: keep it.
    if env.exception_check().unwrap_or(true) {
        return;
    }
    match failure {
        Failure::Arg(m) => throw_jdk(env, "java/lang/IllegalArgumentException", &m),
        Failure::Core(e @ Error::InvalidArgument(_)) => throw_jdk(
            env,
            "java/lang/IllegalArgumentException",
            &idiom::java_message(&e),
        ),
        Failure::Core(e @ Error::InvalidState(_)) => throw_jdk(
            env,
            "java/lang/IllegalStateException",
            &idiom::java_message(&e),
        ),
        Failure::Handle(e @ HandleError::Closed(_)) => {
            throw_jdk(env, "java/lang/IllegalStateException", &e.to_string())
        }
        Failure::Handle(e @ HandleError::WrongType { .. }) => {
            throw_jdk(env, "java/lang/IllegalArgumentException", &e.to_string())
        }
        Failure::Core(e) => {
            if env.exception_check().unwrap_or(true) {
                return;
            }
            let thrown = exception_of(env, &e).and_then(|obj| env.throw(JThrowable::from(obj)));
            if thrown.is_err() && !env.exception_check().unwrap_or(true) {
                throw_jdk(env, "java/lang/RuntimeException", &idiom::java_message(&e));
            }
        }
        Failure::Jni(e) => throw_tickreel(env, KIND_INTERNAL, &format!("JNI call failed: {e}")),
    }
}

fn throw_jdk(env: &mut JNIEnv<'_>, class: &str, msg: &str) {
    let _ = env.throw_new(class, msg);
}

/// What a `TickreelException` for an I/O error carries besides its message: the `java.nio.file`
/// exception its cause is ([`idiom::nio_cause`]) and the operating system's reason.
pub(crate) struct IoCause<'a> {
    nio: &'static str,
    reason: &'a str,
}

/// A new (not thrown) `TickreelException` of `kind` with `msg`, of the bound package's class;
/// `path` is what its `path()` returns (the file an I/O error happened on), `io` what its cause
/// is built from.
pub(crate) fn new_tickreel_exception<'l>(
    env: &mut JNIEnv<'l>,
    kind: jint,
    msg: &str,
    path: Option<&std::path::Path>,
    io: Option<IoCause<'_>>,
) -> jni::errors::Result<jni::objects::JObject<'l>> {
    let exception = exception_class().ok_or(jni::errors::Error::NullPtr("unbound"))?;
    let jmsg = env.new_string(msg)?;
    let null = || JString::from(jni::objects::JObject::null());
    let jpath = match path {
        Some(p) => env.new_string(p.to_string_lossy())?,
        None => null(),
    };
    let (jnio, jreason) = match io {
        Some(c) => (env.new_string(c.nio)?, env.new_string(c.reason)?),
        None => (null(), null()),
    };
    env.new_object(
        exception.as_str(),
        "(Ljava/lang/String;ILjava/lang/String;Ljava/lang/String;Ljava/lang/String;)V",
        &[
            JValue::Object(&jmsg),
            JValue::Int(kind),
            JValue::Object(&jpath),
            JValue::Object(&jnio),
            JValue::Object(&jreason),
        ],
    )
}

/// A new (not thrown) `TickreelException` for a library error: its kind, its message in Java's
/// words, its path and, for an I/O error, its `java.nio.file` cause.
pub(crate) fn exception_of<'l>(
    env: &mut JNIEnv<'l>,
    e: &Error,
) -> jni::errors::Result<jni::objects::JObject<'l>> {
    let reason = idiom::java_text(&e.reason());
    let io = e.io_kind().map(|k| IoCause {
        nio: idiom::nio_cause(k),
        reason: &reason,
    });
    new_tickreel_exception(env, kind_code(e), &idiom::java_message(e), e.path(), io)
}

fn throw_tickreel(env: &mut JNIEnv<'_>, kind: jint, msg: &str) {
    if env.exception_check().unwrap_or(true) {
        return;
    }
    let thrown = (|| -> jni::errors::Result<()> {
        let obj = new_tickreel_exception(env, kind, msg, None, None)?;
        env.throw(JThrowable::from(obj))
    })();
    if thrown.is_err() && !env.exception_check().unwrap_or(true) {
        throw_jdk(env, "java/lang/RuntimeException", msg);
    }
}

/// Registers an object and returns its handle.
pub(crate) fn insert<T: Any + Send + Sync>(
    what: &'static str,
    object: std::sync::Arc<T>,
) -> Res<jlong> {
    Ok(handles::insert(what, object)?)
}

/// A Java string argument that must not be null.
pub(crate) fn string_arg(env: &mut JNIEnv<'_>, s: &JString<'_>, what: &str) -> Res<String> {
    if s.is_null() {
        return Err(bad_arg(format!("{what} is null")));
    }
    Ok(env.get_string(s)?.into())
}

/// A Java string argument that may be null.
pub(crate) fn opt_string_arg(env: &mut JNIEnv<'_>, s: &JString<'_>) -> Res<Option<String>> {
    if s.is_null() {
        return Ok(None);
    }
    Ok(Some(env.get_string(s)?.into()))
}

/// A Java `byte[]` argument that must not be null, copied.
pub(crate) fn bytes_arg(
    env: &mut JNIEnv<'_>,
    a: &jni::objects::JByteArray<'_>,
    what: &str,
) -> Res<Vec<u8>> {
    if a.is_null() {
        return Err(bad_arg(format!("{what} is null")));
    }
    Ok(env.convert_byte_array(a)?)
}

/// A Java `long[]` argument of exactly `len` elements.
pub(crate) fn longs_arg(
    env: &mut JNIEnv<'_>,
    a: &jni::objects::JLongArray<'_>,
    len: usize,
    what: &str,
) -> Res<Vec<i64>> {
    if a.is_null() {
        return Err(bad_arg(format!("{what} is null")));
    }
    let n = env.get_array_length(a)? as usize;
    if n != len {
        return Err(bad_arg(format!("{what} has {n} elements, expected {len}")));
    }
    let mut out = vec![0i64; len];
    env.get_long_array_region(a, 0, &mut out)?;
    Ok(out)
}

/// A new Java `long[]` holding `values`.
pub(crate) fn long_array(env: &mut JNIEnv<'_>, values: &[i64]) -> Res<jobject> {
    let len = jint::try_from(values.len()).map_err(|_| bad_arg("result too large"))?;
    let a = env.new_long_array(len)?;
    env.set_long_array_region(&a, 0, values)?;
    Ok(a.into_raw())
}

/// A new Java `byte[]` holding `bytes`.
pub(crate) fn byte_array(env: &mut JNIEnv<'_>, bytes: &[u8]) -> Res<jobject> {
    Ok(env.byte_array_from_slice(bytes)?.into_raw())
}

/// One native method of the bridge class.
pub(crate) fn method(name: &str, sig: &str, fn_ptr: *mut c_void) -> NativeMethod {
    NativeMethod {
        name: name.into(),
        sig: sig.into(),
        fn_ptr,
    }
}

/// Every native method of the bridge class, with its JNI signature. Each function pointer's Rust
/// signature matches its JNI signature (static methods: env, class, then the arguments).
fn methods() -> Vec<NativeMethod> {
    let mut m = generated::methods();
    m.extend(pinned::methods());
    m.extend(recorder::methods());
    m
}

/// Finds the bridge class named by the loading thread's property and binds every native method.
/// Returns `false` if no bridge was named (the library was loaded by someone else).
fn bind(env: &mut JNIEnv<'_>) -> jni::errors::Result<bool> {
    let thread = env
        .call_static_method(
            "java/lang/Thread",
            "currentThread",
            "()Ljava/lang/Thread;",
            &[],
        )?
        .l()?;
    let id = env.call_method(&thread, "getId", "()J", &[])?.j()?;
    let key = env.new_string(format!("{BRIDGE_PROPERTY_PREFIX}{id}"))?;
    let value = env
        .call_static_method(
            "java/lang/System",
            "getProperty",
            "(Ljava/lang/String;)Ljava/lang/String;",
            &[JValue::Object(&key)],
        )?
        .l()?;
    if value.is_null() {
        return Ok(false);
    }
    let bridge: String = env.get_string(&JString::from(value))?.into();
    let bridge = bridge.replace('.', "/");
    let package = bridge.rsplit_once('/').map_or("", |(p, _)| p);
    let exception_name = if package.is_empty() {
        EXCEPTION_SIMPLE_NAME.to_string()
    } else {
        format!("{package}/{EXCEPTION_SIMPLE_NAME}")
    };
    let class = env.find_class(bridge.as_str())?;
    // Fails the load now if the class is missing; the local reference dies with this frame.
    let exception = env.find_class(exception_name.as_str())?;
    env.delete_local_ref(exception)?;
    env.register_native_methods(&class, &methods())?;
    *BOUND.lock().unwrap_or_else(|p| p.into_inner()) = Some(Bound {
        exception: exception_name,
    });
    Ok(true)
}

/// Called by the JVM when `System.load` loads this library: binds the bridge class named by the
/// loader (see the module documentation). On failure the pending Java exception (for instance a
/// `NoSuchMethodError` from `RegisterNatives` when jar and library disagree) is left for
/// `System.load` to report.
///
/// # Safety
///
/// Called only by the JVM, with a valid `JavaVM` pointer.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn JNI_OnLoad(
    vm: *mut jni::sys::JavaVM,
    _reserved: *mut c_void,
) -> jint {
    let outcome = catch(|| {
        // SAFETY: the JVM passes a valid, non-null `JavaVM` pointer to `JNI_OnLoad`, valid for the
        // lifetime of the VM.
        let vm = unsafe { JavaVM::from_raw(vm) }?;
        let mut env = vm.get_env()?;
        bind(&mut env)
    });
    match outcome {
        Ok(Ok(_)) => JNI_VERSION_1_8,
        Ok(Err(_)) | Err(_) => JNI_ERR,
    }
}

/// Called by the JVM when the class loader that loaded this library is collected, just before the
/// library is unmapped: releases what `JNI_OnLoad` and the plugin's use left behind, so that no
/// thread runs this library's code once it is gone. Objects whose handles Java never closed are
/// dropped (an engine's writer and compaction threads are joined), the process-wide prefetch
/// pool's workers are stopped and joined, and the bound exception class name is forgotten. The
/// native methods need no unregistering: their class is being unloaded with the loader.
///
/// # Safety
///
/// Called only by the JVM, once, after every call into this library has returned.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn JNI_OnUnload(_vm: *mut jni::sys::JavaVM, _reserved: *mut c_void) {
    let _ = catch(|| {
        drop(handles::remove_all());
        tickreel::play::PrefetchPool::global().shutdown();
        BOUND.lock().unwrap_or_else(|p| p.into_inner()).take();
    });
}

#[cfg(test)]
mod tests {
    use super::methods;

    /// The JNI descriptor of a Java type as written in `NativeBridge.java`.
    fn descriptor(java: &str) -> String {
        if let Some(element) = java.strip_suffix("[]") {
            return format!("[{}", descriptor(element));
        }
        match java {
            "void" => "V".into(),
            "boolean" => "Z".into(),
            "int" => "I".into(),
            "long" => "J".into(),
            "double" => "D".into(),
            "byte" => "B".into(),
            "String" => "Ljava/lang/String;".into(),
            "Object" => "Ljava/lang/Object;".into(),
            "ByteBuffer" => "Ljava/nio/ByteBuffer;".into(),
            other => panic!("NativeBridge.java uses {other}: add it here"),
        }
    }

    /// Every `static native` method of `NativeBridge.java` with its JNI signature, sorted.
    fn java_natives() -> Vec<(String, String)> {
        let src = include_str!(
            "../../../java-bindings/tickreel/src/main/java/io/tickreel/NativeBridge.java"
        );
        let mut out: Vec<(String, String)> = src
            .split("static native ")
            .skip(1)
            .map(|decl| {
                let decl = decl.split(';').next().unwrap();
                let (head, params) = decl.split_once('(').unwrap();
                let mut head = head.split_whitespace();
                let ret = head.next().unwrap();
                let name = head.next().unwrap().to_string();
                let params: String = params
                    .trim_end()
                    .trim_end_matches(')')
                    .split(',')
                    .filter(|p| !p.trim().is_empty())
                    .map(|p| descriptor(p.split_whitespace().next().unwrap()))
                    .collect();
                (name, format!("({params}){}", descriptor(ret)))
            })
            .collect();
        out.sort();
        out
    }

    /// The Java declarations, the registration table and the functions' signatures agree both
    /// ways. (Loading the library checks one way at run time: `RegisterNatives` fails on a
    /// registered method the class does not declare; a declared method left out of the table
    /// would only fail when called.)
    #[test]
    fn the_registration_table_matches_native_bridge_java() {
        let mut registered: Vec<(String, String)> = methods()
            .into_iter()
            .map(|m| (String::from(m.name), String::from(m.sig)))
            .collect();
        if !cfg!(feature = "test-hooks") {
            // Declared always, bound only in a library built for the tests.
            registered.push(("engineSetWritersStalled".into(), "(JZ)V".into()));
        }
        registered.sort();
        let java = java_natives();
        assert!(java.len() > 40, "parsed only {} declarations", java.len());
        let missing: Vec<_> = java.iter().filter(|m| !registered.contains(m)).collect();
        let extra: Vec<_> = registered.iter().filter(|m| !java.contains(m)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "declared in NativeBridge.java but not registered: {missing:?}; registered but not \
             declared: {extra:?}"
        );
    }
}

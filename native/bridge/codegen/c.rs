//! Emits the `extern "C"` entry points (`OUT_DIR/bridge_ffi.rs`).
//!
//! Each entry point: checks the out-pointer (and, for a new handle, sets it to NULL first), then
//! converts each argument through `CArg::store` (`ffi/convert.rs`), calls the operation, and
//! converts its result through `CResult` / `CArrayResult`, all inside `guard` (panics and errors
//! become result codes and the thread's last error).

use std::fmt::Write as _;
use std::path::Path;

use super::{
    COut, Op, Param, api_uses, cfg_line, doc_attrs, generic_arg, last_ident, modules, static_ty,
};

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool", "usize",
];

/// What a C parameter is, for its type, its safety contract and whether the function is unsafe.
enum Kind {
    Value(String),
    /// A handle: `*mut TickreelX`; never dereferenced.
    Handle(String),
    /// A NUL-terminated string; `nullable`: NULL means none.
    Str {
        nullable: bool,
    },
    /// `(name: *const u8, name_len: usize)`.
    Bytes,
    /// `&[TickreelX]`: `(name: *const TickreelX, name_count: usize)`, an array of C structs.
    Array(String),
    /// `&[T]` of a primitive `T` other than `u8`: `(name: *const T, name_len: usize)`, read in
    /// place for the call.
    Slice(String),
    /// `&mut [T]` of a primitive `T`: `(name: *mut T, name_len: usize)`, a caller's buffer the
    /// operation writes in place (nothing allocated per call).
    SliceMut(String),
    /// A struct passed by value in Rust, by pointer in C: `*const TickreelX` for `X`.
    Struct(String),
    /// `Option<Uuid>`: NULL or 16 bytes.
    Uuid,
    /// `StringPairs`: `(name_keys, name_values, name_count)`, two arrays of strings.
    Pairs,
    /// `TerrainSections`: `(name: *const TickreelTerrainSection, name_count: usize)`.
    Terrain,
}

fn kind(p: &Param) -> Result<Kind, String> {
    let t = &p.ty;
    if let Some(id) = last_ident(t).filter(|i| PRIMITIVES.contains(&i.as_str())) {
        return Ok(Kind::Value(id));
    }
    if last_ident(t).as_deref() == Some("Id") {
        return Ok(Kind::Value("u32".into()));
    }
    if super::option_inner(t).and_then(last_ident).as_deref() == Some("Uuid") {
        return Ok(Kind::Uuid);
    }
    if last_ident(t).as_deref() == Some("StringPairs") {
        return Ok(Kind::Pairs);
    }
    if last_ident(t).as_deref() == Some("TerrainSections") {
        return Ok(Kind::Terrain);
    }
    if let Some(syn::Type::Reference(r)) = super::option_inner(t) {
        return match last_ident(&r.elem).as_deref() {
            Some("str" | "Path") => Ok(Kind::Str { nullable: true }),
            // A handle that may be NULL (options: NULL for the defaults).
            Some(h) => Ok(Kind::Handle(format!("Tickreel{h}"))),
            None => Err(format!("{}: no C form for this option", p.name)),
        };
    }
    if let Some(h) = generic_arg(t, "Released").and_then(last_ident) {
        return Ok(Kind::Handle(format!("Tickreel{h}")));
    }
    if let syn::Type::Reference(r) = t {
        if let syn::Type::Slice(s) = &*r.elem
            && let Some(item) = last_ident(&s.elem).filter(|i| PRIMITIVES.contains(&i.as_str()))
            && item != "bool"
            && item != "usize"
        {
            if r.mutability.is_some() {
                return Ok(Kind::SliceMut(item));
            }
            if item != "u8" {
                return Ok(Kind::Slice(item));
            }
        }
        match &*r.elem {
            syn::Type::Slice(s) if last_ident(&s.elem).as_deref() == Some("u8") => {
                return Ok(Kind::Bytes);
            }
            syn::Type::Slice(s) => {
                if let Some(item) = last_ident(&s.elem).filter(|i| i.starts_with("Tickreel")) {
                    return Ok(Kind::Array(item));
                }
            }
            e => match last_ident(e).as_deref() {
                Some("str" | "Path") => return Ok(Kind::Str { nullable: false }),
                Some(h) => return Ok(Kind::Handle(format!("Tickreel{h}"))),
                None => {}
            },
        }
    }
    if let syn::Type::Path(_) = t
        && let Some(name) = last_ident(t)
    {
        return Ok(Kind::Struct(format!("Tickreel{name}")));
    }
    Err(format!(
        "{}: no C form for parameter type `{}` (add one to native/bridge/codegen/c.rs)",
        p.name,
        static_ty(t)
    ))
}

/// The C type of the out-pointer of a result, where it follows from the Rust type: a primitive,
/// or a new handle (`New<X>`: `*mut TickreelX`).
pub fn derived_out_type(t: &syn::Type) -> Option<String> {
    if let Some(id) = last_ident(t).filter(|i| PRIMITIVES.contains(&i.as_str())) {
        return Some(id);
    }
    generic_arg(t, "New")
        .and_then(last_ident)
        .map(|h| format!("*mut Tickreel{h}"))
}

/// Writes `bridge_ffi.rs`.
pub fn emit(api_dir: &Path, ops: &[Op]) -> Result<String, String> {
    let mut s = String::from(
        "// @generated by build.rs (native/bridge/codegen/c.rs) from native/bridge/api/. Do not \
         edit.\n",
    );
    for module in modules(ops) {
        let _ = writeln!(s, "\n/// C entry points of `crate::api::{module}`.");
        let _ = writeln!(
            s,
            "#[allow(unused_imports, clippy::needless_borrow, clippy::unit_arg)]"
        );
        s.push_str(&cfg_line(&module, ""));
        let _ = writeln!(s, "pub mod {module} {{");
        s.push_str("    use std::ffi::c_char;\n");
        s.push_str("    use crate::ffi::*;\n");
        s.push_str("    use crate::ffi::args::{Out, OutArray};\n");
        s.push_str(
            "    use crate::ffi::convert::{CArg, CArrayExtra, CArrayResult, CResult, CValue, fill_array};\n",
        );
        s.push_str("    use crate::ffi::result::{TickreelResult, guard};\n");
        let _ = writeln!(s, "    use crate::api::{module}::*;");
        for u in api_uses(api_dir, &module)? {
            let _ = writeln!(s, "    {u}");
        }
        for op in ops.iter().filter(|o| o.module == module && o.c.is_some()) {
            emit_fn(&mut s, op).map_err(|e| format!("{}::{}: {e}", op.module, op.name))?;
        }
        s.push_str("}\n");
    }
    s.push_str(&super::records::emit_c(&super::records::read(api_dir)?));
    Ok(s)
}

fn emit_fn(s: &mut String, op: &Op) -> Result<(), String> {
    let cname = op.c.as_deref().unwrap();
    let mut params: Vec<String> = Vec::new();
    let mut safety: Vec<String> = Vec::new();
    let mut body = String::new();
    let mut is_unsafe = false;
    let i = "            ";

    // The out-pointer first: checked (and a new handle's set to NULL) before anything else.
    match &op.c_out {
        COut::None => {}
        COut::Value { name, ty, optional } => {
            params.push(format!("{name}: *mut {ty}"));
            is_unsafe = true;
            let ctor = if *optional { "optional" } else { "new" };
            safety.push(format!(
                "`{name}` must be NULL or point to writable storage for one `{}`{}.",
                ty.trim_start_matches("*mut "),
                if ty.starts_with("*mut") {
                    " pointer"
                } else {
                    ""
                }
            ));
            let _ = writeln!(
                body,
                "{i}// SAFETY: the caller contract in this function's `# Safety` section."
            );
            let _ = writeln!(
                body,
                "{i}let {name} = unsafe {{ Out::{ctor}({name}, \"{name}\") }}?;"
            );
            let ret = super::static_ret(op);
            if *optional {
                let _ = writeln!(
                    body,
                    "{i}if let (Some(v), Some(o)) = (<{ret} as CResult>::on_failure(), &{name}) \
                     {{ o.set(v) }}"
                );
            } else {
                let _ = writeln!(
                    body,
                    "{i}if let Some(v) = <{ret} as CResult>::on_failure() {{ {name}.set(v) }}"
                );
            }
        }
        COut::Values(outs) => {
            is_unsafe = true;
            let ret = super::static_ret(op);
            for (name, ty) in outs {
                params.push(format!("{name}: *mut {ty}"));
                safety.push(format!(
                    "`{name}` must be NULL or point to writable storage for one `{ty}`."
                ));
                let _ = writeln!(
                    body,
                    "{i}// SAFETY: the caller contract in this function's `# Safety` section."
                );
                let _ = writeln!(
                    body,
                    "{i}let {name} = unsafe {{ Out::new({name}, \"{name}\") }}?;"
                );
            }
            let sets: Vec<String> = outs
                .iter()
                .enumerate()
                .map(|(k, (n, _))| format!("{n}.set(v.{k});"))
                .collect();
            let _ = writeln!(
                body,
                "{i}if let Some(v) = <{ret} as CResult>::on_failure() {{ {} }}",
                sets.join(" ")
            );
        }
        COut::Str { name, extra } => {
            is_unsafe = true;
            let (what, count) = ("bytes", ("out_len", "optional"));
            buffer_out(
                &mut params,
                &mut safety,
                &mut body,
                name,
                "c_char",
                what,
                count,
                extra,
            );
        }
        COut::Array { name, item, extra } => {
            is_unsafe = true;
            let what = format!("`{item}`s");
            let count = ("out_count", "new");
            buffer_out(
                &mut params,
                &mut safety,
                &mut body,
                name,
                item,
                &what,
                count,
                extra,
            );
        }
    }
    // Insert the parameters before the out-pointer(s), which come last in C.
    let outs = std::mem::take(&mut params);
    for p in &op.params {
        let n = &p.name;
        let ty = static_ty(&p.ty);
        // Plain values and handles convert safely; pointers the caller vouches for do not.
        let (input, safe) = match kind(p)? {
            Kind::Value(t) => {
                params.push(format!("{n}: {t}"));
                (n.clone(), true)
            }
            Kind::Handle(opaque) => {
                params.push(format!("{n}: *mut {opaque}"));
                (n.clone(), true)
            }
            Kind::Str { nullable } => {
                params.push(format!("{n}: *const c_char"));
                safety.push(if nullable {
                    format!("`{n}` must be NULL or a NUL-terminated string.")
                } else {
                    format!("`{n}` must be NULL or a NUL-terminated string (NULL is refused).")
                });
                (n.clone(), false)
            }
            Kind::Bytes if op.direct.as_deref() == Some(n) => {
                params.push(format!("{n}: *const u8"));
                params.push(format!("{n}_len: usize"));
                safety.push(format!(
                    "`{n}` must point to `{n}_len` readable bytes (NULL is refused)."
                ));
                is_unsafe = true;
                let _ = writeln!(
                    body,
                    "{i}// SAFETY: the caller contract in this function's `# Safety` section."
                );
                let _ = writeln!(
                    body,
                    "{i}let {n}_ = unsafe {{ crate::ffi::convert::direct_bytes(({n}, {n}_len), \"{n}\") }}?;"
                );
                continue;
            }
            Kind::Bytes => {
                params.push(format!("{n}: *const u8"));
                params.push(format!("{n}_len: usize"));
                safety.push(format!(
                    "`{n}` must point to `{n}_len` readable bytes (or `{n}_len` must be 0)."
                ));
                (format!("({n}, {n}_len)"), false)
            }
            Kind::Array(item) => {
                params.push(format!("{n}: *const {item}"));
                params.push(format!("{n}_count: usize"));
                safety.push(format!(
                    "`{n}` must point to `{n}_count` readable `{item}`s (or `{n}_count` must be 0)."
                ));
                (format!("({n}, {n}_count)"), false)
            }
            Kind::Slice(item) => {
                params.push(format!("{n}: *const {item}"));
                params.push(format!("{n}_len: usize"));
                safety.push(format!(
                    "`{n}` must point to `{n}_len` readable `{item}`s (or `{n}_len` must be 0)."
                ));
                (format!("({n}, {n}_len)"), false)
            }
            Kind::SliceMut(item) => {
                params.push(format!("{n}: *mut {item}"));
                params.push(format!("{n}_len: usize"));
                safety.push(format!(
                    "`{n}` must point to `{n}_len` writable `{item}`s (or `{n}_len` must be 0), \
                     not overlapping any other argument."
                ));
                (format!("({n}, {n}_len)"), false)
            }
            Kind::Pairs => {
                params.push(format!("{n}_keys: *const *const c_char"));
                params.push(format!("{n}_values: *const *const c_char"));
                params.push(format!("{n}_count: usize"));
                safety.push(format!(
                    "`{n}_keys` and `{n}_values` must each point to `{n}_count` pointers to \
                     NUL-terminated strings (or `{n}_count` must be 0)."
                ));
                (format!("({n}_keys, {n}_values, {n}_count)"), false)
            }
            Kind::Terrain => {
                params.push(format!("{n}: *const TickreelTerrainSection"));
                params.push(format!("{n}_count: usize"));
                safety.push(format!(
                    "`{n}` must point to `{n}_count` readable `TickreelTerrainSection`s (or \
                     `{n}_count` must be 0), each with `palette_len` readable `uint32_t`s at \
                     `palette` and `packed_len` readable `uint64_t`s at `packed` (or that length 0)."
                ));
                (format!("({n}, {n}_count)"), false)
            }
            Kind::Uuid => {
                params.push(format!("{n}: *const u8"));
                safety.push(format!("`{n}` must be NULL or point to 16 readable bytes."));
                (n.clone(), false)
            }
            Kind::Struct(ctype) => {
                params.push(format!("{n}: *const {ctype}"));
                safety.push(format!(
                    "`{n}` must be NULL or point to a readable `{ctype}`."
                ));
                (n.clone(), false)
            }
        };
        if safe {
            let _ = writeln!(
                body,
                "{i}let {n}_ = <{ty} as CValue>::store({input}, \"{n}\")?;"
            );
        } else {
            is_unsafe = true;
            let _ = writeln!(
                body,
                "{i}// SAFETY: the caller contract in this function's `# Safety` section."
            );
            let _ = writeln!(
                body,
                "{i}{} {n}_ = unsafe {{ <{ty} as CArg>::store({input}, \"{n}\") }}?;",
                p.binding()
            );
        }
    }
    params.extend(outs);
    let args: Vec<String> = op.params.iter().map(Param::pass_expr).collect();
    let call = format!(
        "crate::api::{}::{}({})",
        op.module,
        op.name,
        args.join(", ")
    );
    let call = if op.fallible {
        format!("{call}?")
    } else {
        call
    };
    match &op.c_out {
        COut::None => {
            let _ = writeln!(body, "{i}{call};");
        }
        COut::Value { name, optional, .. } => {
            // `split`: a result may leave a value for C even when the call fails.
            let _ = writeln!(body, "{i}let (v, r) = CResult::split({call});");
            if *optional {
                let _ = writeln!(
                    body,
                    "{i}if let (Some(v), Some(o)) = (v, {name}) {{ o.set(v) }}"
                );
            } else {
                let _ = writeln!(body, "{i}if let Some(v) = v {{ {name}.set(v) }}");
            }
            let _ = writeln!(body, "{i}r?;");
        }
        COut::Values(outs) => {
            let _ = writeln!(body, "{i}let (v, r) = CResult::split({call});");
            let sets: Vec<String> = outs
                .iter()
                .enumerate()
                .map(|(k, (n, _))| format!("{n}.set(v.{k});"))
                .collect();
            let _ = writeln!(body, "{i}if let Some(v) = v {{ {} }}", sets.join(" "));
            let _ = writeln!(body, "{i}r?;");
        }
        COut::Str { name, extra } => {
            let _ = writeln!(body, "{i}let text = {call};");
            match extra {
                Some((e, _, true)) => {
                    let _ = writeln!(
                        body,
                        "{i}if let Some(o) = &{e} {{ o.set(CArrayExtra::extra(&text)) }}"
                    );
                }
                Some((e, _, false)) => {
                    let _ = writeln!(body, "{i}{e}.set(CArrayExtra::extra(&text));");
                }
                None => {}
            }
            let _ = writeln!(
                body,
                "{i}crate::ffi::convert::fill_string(text, &{name}, out_len.as_ref())?;"
            );
        }
        COut::Array { name, extra, .. } => {
            let _ = writeln!(body, "{i}let list = {call};");
            match extra {
                Some((e, _, true)) => {
                    let _ = writeln!(
                        body,
                        "{i}if let Some(o) = &{e} {{ o.set(CArrayExtra::extra(&list)) }}"
                    );
                }
                Some((e, _, false)) => {
                    let _ = writeln!(body, "{i}{e}.set(CArrayExtra::extra(&list));");
                }
                None => {}
            }
            let _ = writeln!(body, "{i}fill_array(list, &{name}, &out_count)?;");
        }
    }
    let _ = writeln!(body, "{i}Ok(())");

    let mut docs = c_docs(&op.docs);
    if is_unsafe {
        docs.push(String::new());
        docs.push(" # Safety".into());
        for l in &safety {
            docs.push(format!(" {l}"));
        }
    }
    doc_attrs(s, "    ", &docs);
    s.push_str("    #[unsafe(no_mangle)]\n");
    let _ = writeln!(
        s,
        "    pub {}extern \"C\" fn {cname}({}) -> TickreelResult {{",
        if is_unsafe { "unsafe " } else { "" },
        params.join(", ")
    );
    s.push_str("        guard(|| {\n");
    s.push_str(&body);
    s.push_str("        })\n    }\n");
    Ok(())
}

/// The out-pointers of a result written into a caller's buffer: `(name: *mut elem, capacity,
/// count: *mut usize)` and the optional extra out-pointer after them (`COut::Str`,
/// `COut::Array`), their safety lines and their checks (`count.1` is `Out`'s constructor:
/// `new` when the count pointer is required, `optional` when it may be NULL).
#[allow(clippy::too_many_arguments)]
fn buffer_out(
    params: &mut Vec<String>,
    safety: &mut Vec<String>,
    body: &mut String,
    name: &str,
    elem: &str,
    what: &str,
    (count, count_ctor): (&str, &str),
    extra: &Option<(String, String, bool)>,
) {
    let i = "            ";
    let check = |body: &mut String, var: &str, expr: String| {
        let _ = writeln!(
            body,
            "{i}// SAFETY: the caller contract in this function's `# Safety` section."
        );
        let _ = writeln!(body, "{i}let {var} = unsafe {{ {expr} }}?;");
    };
    params.push(format!("{name}: *mut {elem}"));
    params.push("capacity: usize".into());
    params.push(format!("{count}: *mut usize"));
    if let Some((e, ty, optional)) = extra {
        params.push(format!("{e}: *mut {ty}"));
        safety.push(format!(
            "`{e}` must be NULL or point to writable storage for one `{ty}`."
        ));
        let ctor = if *optional { "optional" } else { "new" };
        check(body, e, format!("Out::{ctor}({e}, \"{e}\")"));
    }
    safety.push(format!(
        "`{name}` must point to `capacity` writable {what} (or `capacity` must be 0); \
         `{count}` must be NULL or point to a writable `size_t`."
    ));
    check(
        body,
        name,
        format!("OutArray::new({name}, capacity, \"{name}\")"),
    );
    check(
        body,
        count,
        format!("Out::{count_ctor}({count}, \"{count}\")"),
    );
}

/// The documentation for C: without the paragraphs that begin `(Java:`, which describe the Java
/// form of the operation.
fn c_docs(docs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut skipping = false;
    for line in docs {
        if line.trim_start().starts_with("(Java:") {
            skipping = true;
            if out.last().is_some_and(|l| l.trim().is_empty()) {
                out.pop();
            }
            continue;
        }
        if skipping && line.trim().is_empty() {
            skipping = false;
        }
        if !skipping {
            out.push(line.clone());
        }
    }
    out
}

//! The binding generator, run by the root `build.rs` (this directory is not a module of the
//! library). It reads every `#[bridge_fn(...)]` function of `native/bridge/api/*.rs` (one Rust
//! definition per operation, with Rust types) and writes into `OUT_DIR`:
//!
//! - `bridge_ffi.rs`: the `extern "C"` entry points ([`c`]), which cbindgen also reads for
//!   `include/tickreel.h`;
//! - `bridge_jni.rs`: the JNI entry points, their `RegisterNatives` table and the table of Java
//!   declarations ([`jni`]); the JNI and Java types and the JNI signatures come from the Rust
//!   types through the traits of `native/bridge/jni/convert.rs`, so no signature is typed by hand.
//!
//! The generator works on syntax only. Conversions live in trait impls (`ffi/convert.rs`,
//! `jni/convert.rs`), which the generated code names with the declared types; a mismatch is a
//! compile error in the generated file. The C parameter types are written out here (cbindgen
//! reads source, not trait projections) and checked by the compiler against the same traits.

pub mod areas;
pub mod c;
pub mod constants;
pub mod index;
pub mod jni;
pub mod records;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::path::Path;

use quote::ToTokens;
use syn::fold::Fold;

/// One operation: a `#[bridge_fn]` function of an api module.
pub struct Op {
    /// The api module (file stem), e.g. `playhead`.
    pub module: String,
    /// The Rust function's name.
    pub name: String,
    /// The doc comment lines, without the leading `///`.
    pub docs: Vec<String>,
    pub c: Option<String>,
    pub java: Option<String>,
    pub params: Vec<Param>,
    /// The result type (inside `Result<..>` when fallible); `None` for `()`.
    pub ret: Option<syn::Type>,
    pub fallible: bool,
    pub c_out: COut,
    /// Java passes an array the result is written into (`JniFill`), instead of receiving a new
    /// object: for results read every frame.
    pub java_fill: bool,
    /// The `&[u8]` parameter read in place: C `(pointer, length)` with NULL refused, Java a
    /// direct `ByteBuffer` range `(buffer, offset, length)`; for tick batches on hot paths.
    pub direct: Option<String>,
}

/// A parameter of an operation.
pub struct Param {
    pub name: String,
    pub ty: syn::Type,
}

/// How a C caller receives a result that is not `()`.
pub enum COut {
    None,
    /// One out-pointer `name` of C type `ty` (`*mut ty`).
    Value {
        name: String,
        ty: String,
        optional: bool,
    },
    /// Several required out-pointers `(name, C type)`, filled from a tuple.
    Values(Vec<(String, String)>),
    /// `(name: *mut c_char, capacity: usize, out_len: *mut usize)`: a NUL-terminated string;
    /// capacity 0 only reports the length, `out_len` may be NULL (`CStringResult`).
    /// With `extra`, one more out-pointer after them: `(name, C type, optional)`, written even
    /// when the string does not fit (`CArrayExtra`).
    Str {
        name: String,
        extra: Option<(String, String, bool)>,
    },
    /// `(name: *mut item, capacity: usize, out_count: *mut usize)`.
    /// With `extra`, one more out-pointer after them: `(name, C type, optional)`, written even
    /// when the array does not fit (`CArrayExtra`).
    Array {
        name: String,
        item: String,
        extra: Option<(String, String, bool)>,
    },
}

/// How the stored (converted) argument is passed to the operation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// `&stored` (the declared type is a reference; deref coercion gives `&str`, `&Path`, ...).
    Ref,
    /// `&mut stored` (the declared type is `&mut [T]`: a caller's buffer the operation fills).
    Mut,
    /// `stored.as_deref()` (the declared type is `Option<&T>`).
    OptionRef,
    /// `stored` (by value).
    Value,
}

impl Param {
    pub fn pass(&self) -> Pass {
        match &self.ty {
            syn::Type::Reference(r) if r.mutability.is_some() => Pass::Mut,
            syn::Type::Reference(_) => Pass::Ref,
            t if option_inner(t).is_some_and(|i| matches!(i, syn::Type::Reference(_))) => {
                Pass::OptionRef
            }
            _ => Pass::Value,
        }
    }

    /// `let` or `let mut` for the stored argument.
    pub fn binding(&self) -> &'static str {
        if self.pass() == Pass::Mut {
            "let mut"
        } else {
            "let"
        }
    }

    /// A caller's buffer the operation writes (`&mut [T]`): converted after every other parameter,
    /// so that nothing else crosses the boundary while it is borrowed (Java's critical region).
    pub fn is_out_buffer(&self) -> bool {
        self.pass() == Pass::Mut
    }

    /// The expression passing the stored argument `__name` to the operation.
    pub fn pass_expr(&self) -> String {
        let v = format!("{}_", self.name);
        match self.pass() {
            Pass::Ref => format!("&{v}"),
            Pass::Mut => format!("&mut {v}"),
            Pass::OptionRef => format!("{v}.as_deref()"),
            Pass::Value => v,
        }
    }
}

/// `T` of `Option<T>`.
pub fn option_inner(t: &syn::Type) -> Option<&syn::Type> {
    generic_arg(t, "Option")
}

/// `T` of `Name<T>` (by the last path segment).
pub fn generic_arg<'t>(t: &'t syn::Type, name: &str) -> Option<&'t syn::Type> {
    let syn::Type::Path(p) = t else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    a.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The last path segment's name of a type, if it is a path.
pub fn last_ident(t: &syn::Type) -> Option<String> {
    let syn::Type::Path(p) = t else { return None };
    p.path.segments.last().map(|s| s.ident.to_string())
}

/// Every lifetime made `'static` (elided ones included), for naming trait impls by type.
struct Static;

impl Fold for Static {
    fn fold_lifetime(&mut self, _: syn::Lifetime) -> syn::Lifetime {
        syn::Lifetime::new("'static", proc_macro2::Span::call_site())
    }
    fn fold_type_reference(&mut self, r: syn::TypeReference) -> syn::TypeReference {
        let mut r = syn::fold::fold_type_reference(self, r);
        r.lifetime = Some(syn::Lifetime::new(
            "'static",
            proc_macro2::Span::call_site(),
        ));
        r
    }
}

/// The type as source text, every lifetime `'static`: `<{this} as Trait>` names its impl.
pub fn static_ty(t: &syn::Type) -> String {
    Static.fold_type(t.clone()).to_token_stream().to_string()
}

/// The result type as source text with every lifetime `'static` (`()` when there is none).
pub fn static_ret(op: &Op) -> String {
    op.ret.as_ref().map_or_else(|| "()".into(), static_ty)
}

/// Reads every api module under `dir` (sorted by name; `mod.rs` excluded).
pub fn read_api(dir: &Path) -> Result<Vec<Op>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs") && !p.ends_with("mod.rs"))
        .collect();
    files.sort();
    let mut ops = Vec::new();
    for file in files {
        let module = file.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let parsed = syn::parse_file(&src).map_err(|e| format!("{}: {e}", file.display()))?;
        for item in parsed.items {
            if let syn::Item::Fn(f) = item
                && let Some(op) = read_op(&module, &f).map_err(|e| format!("{module}: {e}"))?
            {
                ops.push(op);
            }
        }
    }
    Ok(ops)
}

fn read_op(module: &str, f: &syn::ItemFn) -> Result<Option<Op>, String> {
    let Some(attr) = f.attrs.iter().find(|a| a.path().is_ident("bridge_fn")) else {
        return Ok(None);
    };
    let name = f.sig.ident.to_string();
    let mut op = Op {
        module: module.into(),
        name: name.clone(),
        docs: docs(&f.attrs),
        c: None,
        java: None,
        params: Vec::new(),
        ret: None,
        fallible: false,
        c_out: COut::None,
        java_fill: false,
        direct: None,
    };
    let (mut out, mut out_ty, mut optional, mut array) = (None, None, false, None);
    let mut extra_ty = None;
    let mut string = None;
    let str_value = |m: &syn::meta::ParseNestedMeta<'_>| -> syn::Result<String> {
        Ok(m.value()?.parse::<syn::LitStr>()?.value())
    };
    attr.parse_nested_meta(|m| {
        if m.path.is_ident("c") {
            op.c = Some(str_value(&m)?);
        } else if m.path.is_ident("java") {
            op.java = Some(str_value(&m)?);
        } else if m.path.is_ident("c_out") {
            out = Some(str_value(&m)?);
        } else if m.path.is_ident("c_out_type") {
            out_ty = Some(str_value(&m)?);
        } else if m.path.is_ident("c_out_optional") {
            optional = true;
        } else if m.path.is_ident("c_out_string") {
            string = Some(str_value(&m)?);
        } else if m.path.is_ident("c_out_extra_type") {
            extra_ty = Some(str_value(&m)?);
        } else if m.path.is_ident("direct") {
            op.direct = Some(str_value(&m)?);
        } else if m.path.is_ident("java_fill") {
            op.java_fill = true;
        } else if m.path.is_ident("c_out_array") {
            array = Some(str_value(&m)?);
        } else {
            return Err(m.error("unknown bridge_fn argument"));
        }
        Ok(())
    })
    .map_err(|e| format!("{name}: {e}"))?;
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(t) = input else {
            return Err(format!("{name}: an operation takes no self"));
        };
        let syn::Pat::Ident(id) = &*t.pat else {
            return Err(format!("{name}: parameters must be plain names"));
        };
        let pname = id.ident.to_string();
        op.params.push(Param {
            name: pname.trim_start_matches('_').to_string(),
            ty: (*t.ty).clone(),
        });
    }
    if let syn::ReturnType::Type(_, t) = &f.sig.output {
        let (inner, fallible) = match generic_arg(t, "Result") {
            Some(i) => (i.clone(), true),
            None => ((**t).clone(), false),
        };
        op.fallible = fallible;
        let unit = matches!(&inner, syn::Type::Tuple(t) if t.elems.is_empty());
        op.ret = (!unit).then_some(inner);
    }
    if op.c.is_some() {
        op.c_out = match (&op.ret, out, array) {
            (None, None, None) => COut::None,
            (Some(_), extra, None) if string.is_some() => COut::Str {
                name: string.unwrap(),
                extra: match extra {
                    None => None,
                    Some(e) => Some((
                        e,
                        out_ty.ok_or_else(|| format!("{}: give c_out_type", op.name))?,
                        optional,
                    )),
                },
            },
            (Some(_), Some(names), None) if names.contains(',') => {
                let types = out_ty.ok_or_else(|| format!("{names}: give c_out_type"))?;
                let names: Vec<String> = names.split(',').map(|n| n.trim().to_string()).collect();
                let types: Vec<String> = types.split(',').map(|t| t.trim().to_string()).collect();
                if names.len() != types.len() {
                    return Err(format!("{}: as many c_out_type as c_out", op.name));
                }
                COut::Values(names.into_iter().zip(types).collect())
            }
            (Some(_), Some(name), None) => {
                let ret = op.ret.as_ref().unwrap();
                let ty = match out_ty {
                    Some(t) => t,
                    None => c::derived_out_type(ret)
                        .ok_or_else(|| format!("{name}: give c_out_type for this result"))?,
                };
                COut::Value { name, ty, optional }
            }
            (Some(_), extra, Some(name)) => COut::Array {
                name,
                item: out_ty.ok_or_else(|| format!("{}: c_out_array needs c_out_type", op.name))?,
                extra: match extra {
                    None => None,
                    Some(e) => Some((
                        e,
                        extra_ty.ok_or_else(|| format!("{}: give c_out_extra_type", op.name))?,
                        optional,
                    )),
                },
            },
            _ => {
                return Err(format!(
                    "{}: a C operation with a result needs exactly one of c_out / c_out_array",
                    op.name
                ));
            }
        };
    }
    Ok(Some(op))
}

/// The `///` lines of an item.
fn docs(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `#[doc = ...]` attributes for `lines`.
pub fn doc_attrs(out: &mut String, indent: &str, lines: &[String]) {
    for l in lines {
        let _ = writeln!(out, "{indent}#[doc = {l:?}]");
    }
}

/// The `use` items of an api module, to bring its types into scope of the generated code.
pub fn api_uses(dir: &Path, module: &str) -> Result<Vec<String>, String> {
    let file = dir.join(format!("{module}.rs"));
    let src = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let parsed = syn::parse_file(&src).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(parsed
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Use(u) => Some(u.to_token_stream().to_string()),
            _ => None,
        })
        .collect())
}

/// The modules of `ops`, in order, each once.
/// The Cargo feature an api module is compiled under (`None`: always): its generated entry points,
/// registration entries and Java declarations carry the same `#[cfg]`.
/// A module behind two features names both, joined by `+` (`catalog+object`: all of them).
pub fn feature_of(module: &str) -> Option<&'static str> {
    match module {
        "object" | "object_live" => Some("object"),
        "catalog" | "catalog_admin" | "catalog_network" => Some("catalog"),
        "catalog_object" => Some("catalog+object"),
        _ => None,
    }
}

/// `#[cfg(feature = "...")]` (or `#[cfg(all(feature = "...", ...))]`) and a newline, indented,
/// for an api module behind features.
pub fn cfg_line(module: &str, indent: &str) -> String {
    feature_of(module).map_or_else(String::new, |f| {
        let all: Vec<String> = f.split('+').map(|f| format!("feature = {f:?}")).collect();
        match all.as_slice() {
            [one] => format!("{indent}#[cfg({one})]\n"),
            _ => format!("{indent}#[cfg(all({}))]\n", all.join(", ")),
        }
    })
}

pub fn modules(ops: &[Op]) -> Vec<String> {
    let mut m: Vec<String> = Vec::new();
    for op in ops {
        if !m.contains(&op.module) {
            m.push(op.module.clone());
        }
    }
    m
}

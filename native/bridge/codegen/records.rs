//! Records: the plain structs a C or Java caller receives, declared once in `native/bridge/api/`
//! with `#[bridge_struct(c = "TickreelX", what = "...")]` (fields of plain types, documented). From
//! one declaration the generator writes
//!
//! - for C (`bridge_ffi.rs`, module `records`): the `#[repr(C)]` struct `TickreelX` (cbindgen
//!   puts it in the header), its `CRecord` conversion and its `CResult` (one record through an
//!   out-pointer; a list of them is `crate::api::Rows`, filled by one generic `CArrayResult`);
//! - for Java (`bridge_jni.rs`, module `records`): its `JavaRecord` conversion (the fields as
//!   `long`s in declaration order) and its `JniResult` (a `long[]`; `Rows` of them are one
//!   flat `long[]`, or filled into Java's array for `java_fill`); a record with a float field
//!   instead is a `double[]` (`JniResult`, or `JniFill` for `java_fill`: the fields as `double`s in
//!   declaration order).
//!
//! Field types and their forms: an integer or `bool` crosses as it is (Java: a `long`, or a
//! `double` in a record with a float; `bool` 0/1); a `f64` as it is; `Option<integer>` is C
//! `has_name` then `name` (0 when absent), Java the value or -1; `&[u8]` (or `Option<&[u8]>`) is
//! C `name` (a pointer, NULL when absent or empty) and `name_len`; a C struct (`TickreelX`, e.g.
//! `TickreelBlockState`) is itself; a list of them (`&[TickreelX]`, e.g. `blocks`) is C `name`
//! (NULL when empty) and its count, `name` without its plural `s` and `_count` (`block_count`).
//! Bytes, C structs and their lists have no Java form. With `of = "path::Type"`, the
//! declaration describes the fields of that (core) type, read by name; the macro then removes the
//! item (it is only a declaration).

use std::fmt::Write as _;
use std::path::Path;

use quote::ToTokens;

use super::{cfg_line, doc_attrs, docs};

/// One `#[bridge_struct]` declaration.
pub struct Record {
    pub module: String,
    /// The Rust type the conversions are for (`crate::api::m::Name<'_>`, or `of`).
    pub source: String,
    pub c: String,
    pub what: String,
    pub docs: Vec<String>,
    pub fields: Vec<Field>,
}

pub struct Field {
    pub name: String,
    pub docs: Vec<String>,
    pub form: Form,
}

/// How a field crosses.
pub enum Form {
    /// An integer, `bool` or float, as it is.
    Plain(String),
    /// `Option<integer>`.
    Optional(String),
    /// `&[u8]`, or `Option<&[u8]>` when the flag is set.
    Bytes(bool),
    /// A C struct (`TickreelX`), as it is.
    CStruct(String),
    /// `&[TickreelX]`: borrowed C structs.
    CList(String),
}

const INTEGERS: &[&str] = &["u8", "u16", "u32", "u64", "i32", "i64", "usize", "bool"];

fn form(t: &syn::Type) -> Option<Form> {
    let text = t.to_token_stream().to_string().replace(' ', "");
    let bytes = |s: &str| s.starts_with('&') && s.ends_with("[u8]");
    if INTEGERS.contains(&text.as_str()) || text == "f64" || text == "f32" {
        return Some(Form::Plain(text));
    }
    if bytes(&text) {
        return Some(Form::Bytes(false));
    }
    if text.starts_with("Tickreel") {
        return Some(Form::CStruct(text));
    }
    if let Some(list) = text.strip_prefix('&').and_then(|t| t.strip_suffix(']')) {
        let elem = &list[list.find('[')? + 1..];
        return elem
            .starts_with("Tickreel")
            .then(|| Form::CList(elem.to_string()));
    }
    let inner = super::option_inner(t)?;
    let inner_text = inner.to_token_stream().to_string().replace(' ', "");
    if INTEGERS.contains(&inner_text.as_str()) {
        Some(Form::Optional(inner_text))
    } else if bytes(&inner_text) {
        Some(Form::Bytes(true))
    } else {
        None
    }
}

/// How Java receives a record.
#[derive(Debug, PartialEq, Eq)]
pub enum Java {
    /// Its fields as `long`s: every field is an integer, `bool` or `Option<integer>`.
    Longs,
    /// Its fields as `double`s: no bytes, and a float among them.
    Doubles,
    /// Not at all: it holds bytes or C structs.
    None,
}

impl Record {
    pub fn java(&self) -> Java {
        let float = |f: &Field| matches!(&f.form, Form::Plain(t) if t.starts_with('f'));
        let c_only =
            |f: &Field| matches!(f.form, Form::Bytes(_) | Form::CStruct(_) | Form::CList(_));
        if self.fields.iter().any(c_only) {
            Java::None
        } else if self.fields.iter().any(float) {
            Java::Doubles
        } else {
            Java::Longs
        }
    }
}

/// Every record of the api modules under `dir`.
pub fn read(dir: &Path) -> Result<Vec<Record>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let module = file.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let parsed = syn::parse_file(&src).map_err(|e| format!("{}: {e}", file.display()))?;
        for item in parsed.items {
            let syn::Item::Struct(s) = item else { continue };
            let Some(attr) = s.attrs.iter().find(|a| a.path().is_ident("bridge_struct")) else {
                continue;
            };
            let name = s.ident.to_string();
            let (mut c, mut what, mut of) = (None, None, None);
            attr.parse_nested_meta(|m| {
                let v = m.value()?.parse::<syn::LitStr>()?.value();
                if m.path.is_ident("c") {
                    c = Some(v);
                } else if m.path.is_ident("what") {
                    what = Some(v);
                } else if m.path.is_ident("of") {
                    of = Some(v);
                } else {
                    return Err(m.error("unknown bridge_struct argument"));
                }
                Ok(())
            })
            .map_err(|e| format!("{module}::{name}: {e}"))?;
            let lifetime = if s.generics.lifetimes().next().is_some() {
                "<'_>"
            } else {
                ""
            };
            let mut fields = Vec::new();
            for f in &s.fields {
                let fname = f
                    .ident
                    .as_ref()
                    .ok_or("a record has named fields")?
                    .to_string();
                let form = form(&f.ty).ok_or_else(|| {
                    format!("{module}::{name}.{fname}: no C form (see codegen/records.rs)")
                })?;
                fields.push(Field {
                    name: fname,
                    docs: docs(&f.attrs),
                    form,
                });
            }
            out.push(Record {
                source: of.unwrap_or_else(|| format!("crate::api::{module}::{name}{lifetime}")),
                c: c.ok_or_else(|| format!("{module}::{name}: give c = \"TickreelX\""))?,
                what: what.unwrap_or_else(|| name.clone()),
                module: module.clone(),
                docs: docs(&s.attrs),
                fields,
            });
        }
    }
    Ok(out)
}

/// The C side of every record: `pub mod records { ... }`.
pub fn emit_c(records: &[Record]) -> String {
    let mut s = String::from("\n/// The records of `crate::api` (`codegen/records.rs`).\n");
    s.push_str("#[allow(unused_imports, clippy::unnecessary_cast)]\npub mod records {\n");
    s.push_str("    use crate::ffi::convert::{CRecord, CResult};\n");
    s.push_str("    use crate::ffi::result::FfiResult;\n");
    s.push_str("    use crate::shared::block_state::TickreelBlockState;\n");
    for r in records {
        let i = "    ";
        let cfg = cfg_line(&r.module, i);
        let plain = r.java() != Java::None;
        let eq = r
            .fields
            .iter()
            .all(|f| !matches!(&f.form, Form::Plain(t) if t.starts_with('f')));
        s.push('\n');
        doc_attrs(&mut s, i, &r.docs);
        s.push_str(&cfg);
        let _ = writeln!(s, "{i}#[repr(C)]");
        let _ = writeln!(
            s,
            "{i}#[derive(Debug, Clone, Copy, PartialEq{}{})]",
            if eq { ", Eq" } else { "" },
            if plain { ", Default" } else { "" }
        );
        let _ = writeln!(s, "{i}pub struct {} {{", r.c);
        let mut values = String::new();
        let mut field = |s: &mut String, docs: &[String], name: &str, ty: &str, value: String| {
            doc_attrs(s, "        ", docs);
            let _ = writeln!(s, "        pub {name}: {ty},");
            let _ = writeln!(values, "                {name}: {value},");
        };
        for f in &r.fields {
            let n = &f.name;
            match &f.form {
                Form::Plain(t) if t == "bool" => field(&mut s, &f.docs, n, t, format!("s.{n}")),
                Form::Plain(t) => field(&mut s, &f.docs, n, t, format!("s.{n} as {t}")),
                Form::Optional(t) => {
                    let set = [format!(" `{n}` is set.")];
                    field(
                        &mut s,
                        &set,
                        &format!("has_{n}"),
                        "bool",
                        format!("s.{n}.is_some()"),
                    );
                    field(&mut s, &f.docs, n, t, format!("s.{n}.unwrap_or(0)"));
                }
                Form::Bytes(optional) => {
                    let bytes = if *optional {
                        format!("s.{n}.unwrap_or_default()")
                    } else {
                        format!("s.{n}")
                    };
                    let ptr = format!(
                        "if {bytes}.is_empty() {{ std::ptr::null() }} else {{ {bytes}.as_ptr() }}"
                    );
                    field(&mut s, &f.docs, n, "*const u8", ptr);
                    let len_doc = [format!(" Bytes at `{n}`.")];
                    field(
                        &mut s,
                        &len_doc,
                        &format!("{n}_len"),
                        "usize",
                        format!("{bytes}.len()"),
                    );
                }
                Form::CStruct(t) => field(&mut s, &f.docs, n, t, format!("s.{n}")),
                Form::CList(t) => {
                    let ptr = format!(
                        "if s.{n}.is_empty() {{ std::ptr::null() }} else {{ s.{n}.as_ptr() }}"
                    );
                    field(&mut s, &f.docs, n, &format!("*const {t}"), ptr);
                    let count = format!("{}_count", n.strip_suffix('s').unwrap_or(n));
                    let count_doc = [" Their number.".to_string()];
                    field(&mut s, &count_doc, &count, "usize", format!("s.{n}.len()"));
                }
            }
        }
        let _ = writeln!(s, "{i}}}");
        let (src, c, what) = (&r.source, &r.c, &r.what);
        s.push_str(&cfg);
        let _ = writeln!(
            s,
            "{i}impl CRecord for {src} {{\n{i}    type C = {c};\n{i}    const WHAT: &'static str = \
             {what:?};\n{i}    fn to_c(&self) -> {c} {{\n{i}        let s = self;\n{i}        {c} \
             {{\n{values}{i}        }}\n{i}    }}\n{i}}}"
        );
        s.push_str(&cfg);
        let _ = writeln!(
            s,
            "{i}impl CResult for {src} {{\n{i}    type C = {c};\n{i}    fn into_c(self) -> \
             FfiResult<{c}> {{\n{i}        Ok(self.to_c())\n{i}    }}\n{i}}}"
        );
    }
    s.push_str("}\n");
    s
}

/// The Java side of every record with a Java form: `pub(crate) mod records { ... }`.
pub fn emit_jni(records: &[Record]) -> String {
    let mut s = String::from("\n/// The records of `crate::api` (`codegen/records.rs`).\n");
    s.push_str("#[allow(unused_imports, clippy::unnecessary_cast)]\npub(crate) mod records {\n");
    s.push_str(
        "    use crate::jni::convert::{JavaRecord, JniFill, JniResult, LONG_ARRAY_JAVA, \
         LONG_ARRAY_SIG};\n",
    );
    for r in records {
        let i = "    ";
        let cfg = cfg_line(&r.module, i);
        match r.java() {
            Java::Longs => {}
            Java::Doubles => {
                s.push('\n');
                s.push_str(&cfg);
                s.push_str(&doubles(r, i, &cfg));
                continue;
            }
            Java::None => continue,
        }
        let longs: Vec<String> = r
            .fields
            .iter()
            .map(|f| {
                let n = &f.name;
                match &f.form {
                    Form::Plain(t) if t == "u64" || t == "usize" => format!("s.{n} as i64"),
                    Form::Plain(t) if t == "i64" => format!("s.{n}"),
                    Form::Plain(_) => format!("i64::from(s.{n})"),
                    _ => format!("s.{n}.map_or(-1, i64::from)"),
                }
            })
            .collect();
        let src = &r.source;
        s.push('\n');
        s.push_str(&cfg);
        let _ = writeln!(
            s,
            "{i}impl JavaRecord for {src} {{\n{i}    const LONGS: usize = {};\n{i}    fn \
             longs(&self, out: &mut Vec<i64>) {{\n{i}        let s = self;\n{i}        \
             out.extend_from_slice(&[{}]);\n{i}    }}\n{i}}}",
            longs.len(),
            longs.join(", ")
        );
        s.push_str(&cfg);
        let _ = writeln!(
            s,
            "{i}/// `long[]`: the fields in declaration order.\n{i}impl JniResult for {src} {{\n{i}    \
             type Jni = ::jni::sys::jobject;\n{i}    const SIG: &'static str = LONG_ARRAY_SIG;\n{i}    \
             const JAVA: &'static str = LONG_ARRAY_JAVA;\n{i}    fn into_jni(self, env: &mut \
             ::jni::JNIEnv<'_>) -> crate::jni::Res<::jni::sys::jobject> {{\n{i}        \
             crate::jni::convert::records_array(env, std::slice::from_ref(&self))\n{i}    \
             }}\n{i}}}"
        );
    }
    s.push_str("}\n");
    s
}

/// `impl JniFill` (into Java's `double[]`) and `impl JniResult` (a new one) of a record with a
/// float: its fields as `double`s in declaration order.
fn doubles(r: &Record, i: &str, cfg: &str) -> String {
    let values: Vec<String> = r
        .fields
        .iter()
        .map(|f| {
            let n = &f.name;
            match &f.form {
                Form::Plain(t) if t == "f64" => format!("s.{n}"),
                Form::Plain(t) if t == "bool" => format!("f64::from(u8::from(s.{n}))"),
                Form::Optional(_) => format!("s.{n}.map_or(-1.0, |v| v as f64)"),
                Form::Plain(t) => format!("s.{n} as {t} as f64"),
                _ => unreachable!("a record with bytes or C structs has no Java form"),
            }
        })
        .collect();
    format!(
        "{i}/// `double[]`: the fields in declaration order.\n{i}impl JniFill for {src} {{\n{i}    \
         type Array = ::jni::sys::jdoubleArray;\n{i}    const ARRAY_SIG: &'static str = \"[D\";\n{i}    \
         const ARRAY_JAVA: &'static str = \"double[]\";\n{i}    type Jni = ();\n{i}    const SIG: \
         &'static str = \"V\";\n{i}    const JAVA: &'static str = \"void\";\n{i}    fn fill(self, env: \
         &mut ::jni::JNIEnv<'_>, out: ::jni::sys::jdoubleArray) -> crate::jni::Res<()> {{\n{i}        \
         let s = self;\n{i}        crate::jni::convert::fill_doubles(env, out, &[{v}])\n{i}    \
         }}\n{i}}}\n{cfg}{i}/// A new `double[]`: the fields in declaration order.\n{i}impl JniResult for {src} {{\n{i}    \
         type Jni = ::jni::sys::jobject;\n{i}    const SIG: &'static str = \"[D\";\n{i}    const \
         JAVA: &'static str = \"double[]\";\n{i}    fn into_jni(self, env: &mut ::jni::JNIEnv<'_>) \
         -> crate::jni::Res<::jni::sys::jobject> {{\n{i}        let s = self;\n{i}        \
         crate::jni::convert::double_array(env, &[{v}])\n{i}    }}\n{i}}}\n",
        v = values.join(", "),
        src = r.source,
    )
}

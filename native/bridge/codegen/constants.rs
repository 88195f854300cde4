//! The C constants of an event's fields (`TICKREEL_EVENT_*`, `TICKREEL_HAND_*`, `TICKREEL_SLOT_*`,
//! `TICKREEL_CHANNEL_*`), read from the format's constant modules (`tickreel::format::kind`,
//! `world_kind`, `hand`, `slot`, `channel`): each value and its doc is written once, in the
//! format. The generator writes them as literals (cbindgen reads no paths) into `bridge_ffi.rs`
//! (module `constants`), each with a compile-time assertion that it is the format's value.

use std::fmt::Write as _;
use std::path::Path;

use super::{doc_attrs, docs};

/// One constant module of the format, and its C constants' prefix.
struct Group {
    /// The file under `native/core/src/format/`.
    file: &'static str,
    module: &'static str,
    prefix: &'static str,
    /// Constants that are not values of the field (a range's ends, an alias).
    skip: &'static [&'static str],
    /// The doc line of the group's first C constant (the field it is for).
    what: &'static str,
}

const GROUPS: &[Group] = &[
    Group {
        file: "event.rs",
        module: "kind",
        prefix: "TICKREEL_EVENT_",
        skip: &["EXTENSION_FIRST", "EXTENSION_LAST"],
        what: "`TickreelEvent.kind` (the kind byte of the format):",
    },
    Group {
        file: "world.rs",
        module: "world_kind",
        prefix: "TICKREEL_EVENT_",
        skip: &["LAST"],
        what: "`TickreelEvent.kind` of a world event:",
    },
    Group {
        file: "world.rs",
        module: "hand",
        prefix: "TICKREEL_HAND_",
        skip: &[],
        what: "`TickreelEvent.hand`:",
    },
    Group {
        file: "world.rs",
        module: "slot",
        prefix: "TICKREEL_SLOT_",
        skip: &[],
        what: "Equipment slot (values above `TICKREEL_SLOT_BODY` up to 255 are the game's own):",
    },
    Group {
        file: "world.rs",
        module: "channel",
        prefix: "TICKREEL_CHANNEL_",
        skip: &[],
        what: "Chat channel (values above `TICKREEL_CHANNEL_SYSTEM` are the game's own, treated \
               as private):",
    },
];

/// The format files the constants are read from (for `cargo:rerun-if-changed`).
pub fn sources() -> impl Iterator<Item = &'static str> {
    GROUPS.iter().map(|g| g.file)
}

/// `module`'s `pub const NAME: T = literal;` items of a format file's text, with their docs;
/// an item in `skip` is left out, and any other item is an error.
fn read(
    text: &str,
    module: &str,
    skip: &[&str],
) -> Result<Vec<(String, u64, Vec<String>)>, String> {
    let file = syn::parse_file(text).map_err(|e| e.to_string())?;
    let items = file.items.iter().find_map(|i| match i {
        syn::Item::Mod(m) if m.ident == module => m.content.as_ref().map(|(_, items)| items),
        _ => None,
    });
    let mut out = Vec::new();
    for item in items.ok_or_else(|| format!("no module `{module}`"))? {
        let syn::Item::Const(c) = item else { continue };
        let name = c.ident.to_string();
        if skip.contains(&name.as_str()) {
            continue;
        }
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(v),
            ..
        }) = &*c.expr
        else {
            return Err(format!("`{module}::{name}` is not an integer literal"));
        };
        out.push((
            name,
            v.base10_parse().map_err(|e| e.to_string())?,
            docs(&c.attrs),
        ));
    }
    Ok(out)
}

/// The `constants` module of `bridge_ffi.rs`, from the format files under `format_dir`.
pub fn emit_c(format_dir: &Path) -> Result<String, String> {
    let mut s =
        String::from("\n/// The constants of an event's fields (`codegen/constants.rs`).\n");
    s.push_str("#[allow(clippy::unnecessary_cast)]\npub mod constants {\n");
    for g in GROUPS {
        let path = format_dir.join(g.file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let consts = read(&text, g.module, g.skip).map_err(|e| format!("{}: {e}", g.file))?;
        for (i, (name, value, doc)) in consts.iter().enumerate() {
            let first = (i == 0).then(|| format!(" {}", g.what));
            doc_attrs(
                &mut s,
                "    ",
                &first.into_iter().chain(doc.clone()).collect::<Vec<_>>(),
            );
            let _ = writeln!(s, "    pub const {}{name}: u32 = {value};", g.prefix);
            let _ = writeln!(
                s,
                "    const _: () = assert!({}{name} == tickreel::format::{}::{name} as u32);",
                g.prefix, g.module
            );
        }
    }
    s.push_str("}\n");
    Ok(s)
}

/// `TICKREEL_RESULT_` and the variant's name in capitals, words cut at capitals
/// (`LimitExceeded`: `TICKREEL_RESULT_LIMIT_EXCEEDED`).
fn result_name(variant: &str) -> String {
    let mut s = String::from("TICKREEL_RESULT_");
    for (i, ch) in variant.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(ch.to_ascii_uppercase());
    }
    s
}

/// What is written per result code, generated from the one declaration of `enum TickreelResult`
/// in `ffi/result.rs` (its text is `result_rs`): the list of every code, each code's C name, and
/// the code of each core `ErrorKind` (the codes from 1 to 99 are the core's kinds, by name, so a
/// kind without a code fails the build).
pub fn emit_results(result_rs: &str) -> Result<String, String> {
    let file = syn::parse_file(result_rs).map_err(|e| e.to_string())?;
    let variants = file
        .items
        .iter()
        .find_map(|i| match i {
            syn::Item::Enum(e) if e.ident == "TickreelResult" => Some(&e.variants),
            _ => None,
        })
        .ok_or("no `enum TickreelResult`")?;
    let mut codes = Vec::new();
    for v in variants {
        let Some((
            _,
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }),
        )) = &v.discriminant
        else {
            return Err(format!(
                "`TickreelResult::{}` has no integer value",
                v.ident
            ));
        };
        codes.push((
            v.ident.to_string(),
            n.base10_parse::<u32>().map_err(|e| e.to_string())?,
        ));
    }
    let mut s = String::from(
        "\n/// Every result code, its C name and the code of each core error kind \
         (`codegen/constants.rs`).\nimpl crate::ffi::result::TickreelResult {\n",
    );
    let _ = writeln!(
        s,
        "    /// Every code.\n    pub(crate) const ALL: [Self; {}] = [",
        codes.len()
    );
    for (name, _) in &codes {
        let _ = writeln!(s, "        Self::{name},");
    }
    s.push_str("    ];\n\n    /// The code of a library error kind.\n");
    s.push_str(
        "    pub const fn of_kind(k: tickreel::error::ErrorKind) -> Self {\n        match k {\n",
    );
    for (name, _) in codes.iter().filter(|(_, n)| (1..100).contains(n)) {
        let _ = writeln!(
            s,
            "            tickreel::error::ErrorKind::{name} => Self::{name},"
        );
    }
    s.push_str("        }\n    }\n\n    /// The code's C name.\n");
    s.push_str(
        "    pub(crate) fn c_name(self) -> &'static std::ffi::CStr {\n        match self {\n",
    );
    for (name, _) in &codes {
        let _ = writeln!(s, "            Self::{name} => c\"{}\",", result_name(name));
    }
    s.push_str("        }\n    }\n}\n");
    Ok(s)
}

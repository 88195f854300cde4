//! One number per error in every language: the core's [`ErrorKind::code`], the C result codes
//! (`TickreelResult` and the committed header `include/tickreel.h`) and Java's
//! `TickreelException.Kind` must agree on every number and name. These tests fail when one drifts.

use std::collections::BTreeMap;
use std::ffi::CStr;

use tickreel::error::ErrorKind;

use crate::ffi::result::{TickreelResult, tickreel_result_name};

/// `NAME(code)` entries of `TickreelException.Kind`.
fn java_kinds() -> BTreeMap<String, u32> {
    let src = include_str!(
        "../../java-bindings/tickreel/src/main/java/io/tickreel/TickreelException.java"
    );
    let body = src
        .split("public enum Kind {")
        .nth(1)
        .expect("TickreelException.java declares `public enum Kind {`");
    let body = &body[..body.find(");").expect("the constants end with `);`") + 1];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('/') && !l.starts_with('*'))
        .map(|l| {
            let l = l.trim_end_matches(',');
            let (name, code) = l
                .split_once('(')
                .unwrap_or_else(|| panic!("not `NAME(code)`: {l}"));
            let code = code
                .trim_end_matches(')')
                .parse()
                .unwrap_or_else(|_| panic!("{l}"));
            (name.to_string(), code)
        })
        .collect()
}

/// `TICKREEL_RESULT_<NAME> = code` entries of the committed header.
fn header_codes() -> BTreeMap<String, u32> {
    let src = include_str!("../../include/tickreel.h");
    src.lines()
        .filter_map(|l| l.trim().strip_prefix("TICKREEL_RESULT_"))
        .filter_map(|l| {
            let (name, code) = l.trim_end_matches(',').split_once(" = ")?;
            Some((name.to_string(), code.parse().ok()?))
        })
        .collect()
}

#[test]
fn core_c_and_java_agree_on_every_error_number_and_name() {
    let java = java_kinds();
    let header = header_codes();
    assert!(java.len() >= ErrorKind::ALL.len() && header.len() > ErrorKind::ALL.len());
    for k in ErrorKind::ALL {
        let c = TickreelResult::of_kind(k);
        assert_eq!(c as u32, k.code(), "C code of {k:?}");
        let c_name = format!("TICKREEL_RESULT_{}", k.name());
        assert_eq!(c.c_name().to_str().unwrap(), c_name, "{k:?}");
        // SAFETY: a static NUL-terminated string.
        let by_number = unsafe { CStr::from_ptr(tickreel_result_name(k.code())) };
        assert_eq!(by_number.to_str().unwrap(), c_name);
        assert_eq!(
            header.get(k.name()),
            Some(&k.code()),
            "include/tickreel.h, {k:?}"
        );
        assert_eq!(
            java.get(k.name()),
            Some(&k.code()),
            "TickreelException.Kind.{}",
            k.name()
        );
    }
    // Java's kinds of its own: INTERNAL is C's PANIC; the rest use numbers no C code has.
    assert_eq!(java.get("INTERNAL"), Some(&(TickreelResult::Panic as u32)));
    for (name, code) in &java {
        if ErrorKind::from_code(*code).is_some() || name == "INTERNAL" {
            continue;
        }
        assert!(
            *code >= 100,
            "Java-only kind {name} uses a core number {code}"
        );
        assert!(
            TickreelResult::ALL.iter().all(|c| *c as u32 != *code),
            "Java-only kind {name} reuses C's code {code}"
        );
    }
    let mut codes: Vec<_> = java.values().collect();
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), java.len(), "two Java kinds share a number");
    // Every C code in the header is the enum's.
    for c in TickreelResult::ALL {
        let name = c
            .c_name()
            .to_str()
            .unwrap()
            .trim_start_matches("TICKREEL_RESULT_");
        assert_eq!(
            header.get(name),
            Some(&(c as u32)),
            "include/tickreel.h, {c:?}"
        );
    }
}

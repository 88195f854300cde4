//! How each language names an option the core's messages mark (`tickreel::error::option`): by
//! one name. The core's name (the Rust field) is C's too, the suffix of its setter
//! (`tickreel_shadow_options_set_window`: durations in milliseconds, the unit documented on each
//! setter), and Java's builder method is that name in lowerCamelCase (`chunk_ticks` is
//! `chunkTicks`) except for the few this table lists.

/// `(core name, Java builder method)` where the method is not the name in lowerCamelCase.
const JAVA: &[(&str, &str)] = &[
    ("zstd_level", "compressionLevel"),
    ("compaction_zstd_level", "compactionLevel"),
    ("flush_max_pending_bytes", "flushBytes"),
    ("tick_rate_millihz", "ticksPerSecond"),
    ("block_deadline", "backpressureBlock"),
    ("overwrite", "overwrite(true)"),
];

/// The Java name of an option the core names (or of a setter's parameter, which is named after
/// its option): the builder method that sets it.
pub(crate) fn java_option(name: &str) -> String {
    match JAVA.iter().find(|r| r.0 == name) {
        Some((_, java)) => (*java).to_owned(),
        None => lower_camel(name),
    }
}

/// `snake_case` as `lowerCamelCase`.
fn lower_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    #[test]
    fn java_names_are_lower_camel_case_but_for_the_table() {
        assert_eq!(java_option("flush_interval"), "flushInterval");
        assert_eq!(java_option("chunk_ticks"), "chunkTicks");
        assert_eq!(java_option("window"), "window");
        assert_eq!(java_option("zstd_level"), "compressionLevel");
        assert_eq!(java_option("block_deadline"), "backpressureBlock");
        let mut names: Vec<&str> = JAVA.iter().map(|r| r.0).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), JAVA.len(), "one row per name");
        for (name, java) in JAVA {
            assert_ne!(
                lower_camel(name),
                *java,
                "{name}: a row the rule already gives"
            );
        }
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The names `text` marks as options outside its tests: the string literal of each
    /// `option("…")` and `check_zstd_level("…", …)` call.
    fn marked(text: &str, out: &mut Vec<String>) {
        let text = text.split("#[cfg(test)]").next().unwrap_or(text);
        for call in ["option(", "check_zstd_level("] {
            for (at, _) in text.match_indices(call) {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue; // java_option(…), fn option(…)
                }
                let Some(rest) = text[at + call.len()..].trim_start().strip_prefix('"') else {
                    continue; // option(what): a name given by the caller, marked where it is
                };
                out.push(rest[..rest.find('"').unwrap()].to_owned());
            }
        }
    }

    /// Every option the core's messages name has a setter of that name in C
    /// (`tickreel_*_set_NAME` in include/tickreel.h) and a builder method or setter of its Java
    /// name in the Java library, so that a message always names something the caller can set.
    #[test]
    fn every_core_option_has_a_setter_in_c_and_java() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        rust_files(&root.join("native/core/src"), &mut files);
        let mut names = Vec::new();
        for f in &files {
            marked(&std::fs::read_to_string(f).unwrap(), &mut names);
        }
        names.sort_unstable();
        names.dedup();
        assert!(names.len() >= 20, "too few option names found: {names:?}");
        let header = std::fs::read_to_string(root.join("include/tickreel.h")).unwrap();
        let java_dir = root.join("java-bindings/tickreel/src/main/java/io/tickreel");
        let mut java = String::new();
        for entry in std::fs::read_dir(&java_dir).unwrap() {
            java += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
        }
        let mut missing = Vec::new();
        for name in &names {
            if !header.contains(&format!("_set_{name}(")) {
                missing.push(format!("C: no tickreel_*_set_{name}"));
            }
            let method = java_option(name);
            let method = method.split('(').next().unwrap();
            let mut setter = lower_camel(&format!("set_{name}"));
            setter.insert(0, ' ');
            if !java.contains(&format!(" {method}(")) && !java.contains(&format!("{setter}(")) {
                missing.push(format!("Java: no {method}(…) for {name}"));
            }
        }
        assert!(missing.is_empty(), "{missing:#?}");
    }
}

//! Reorders the header cbindgen wrote by area: each area (the error channel first) gets a section
//! comment, then its types, then its functions, instead of every struct first and every function
//! after. cbindgen cannot do it itself: it writes all constants, then all types (in dependency
//! order), then all functions, and only sorts within those groups.
//!
//! A type goes to the first area that uses it (a function of the area names it, or a type placed
//! in the area contains it); types keep cbindgen's order inside an area, so every type is still
//! declared before its first use. Constants, the result codes and the includes stay at the top.

use super::index::{AREAS, area_of, declared, section};

const OPEN: &str = "#ifdef __cplusplus\nextern \"C\" {\n#endif // __cplusplus\n";
const CLOSE: &str = "#ifdef __cplusplus\n}  // extern \"C\"\n#endif  // __cplusplus\n";

/// The name a type block declares (`typedef struct NAME ...`), if it declares one.
fn type_name(block: &str) -> Option<&str> {
    let line = block.lines().find(|l| l.starts_with("typedef struct "))?;
    let rest = &line["typedef struct ".len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Whether `text` names `name` as a whole word.
fn names(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !ident(c));
        let after = text[i + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c));
        before && after
    })
}

fn blocks(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .map(|b| b.trim_matches('\n'))
        .filter(|b| !b.is_empty())
        .collect()
}

/// `header` (cbindgen's output) organised by area; unchanged if it does not have the expected
/// shape (types before an `extern "C"` block of functions).
pub fn by_area(header: &str) -> String {
    let (Some(open), Some(close)) = (header.find(OPEN), header.rfind(CLOSE)) else {
        return header.to_owned();
    };
    let before = blocks(&header[..open]);
    let functions = blocks(&header[open + OPEN.len()..close]);
    let after = &header[close..];
    let Some(first_type) = before.iter().position(|b| type_name(b).is_some()) else {
        return header.to_owned();
    };
    let (top, types) = before.split_at(first_type);
    // Areas in order: the known ones, then others as their functions appear.
    let mut titles: Vec<String> = AREAS.iter().map(|(t, _)| (*t).to_owned()).collect();
    let mut func_area = Vec::with_capacity(functions.len());
    for f in &functions {
        let area = f.lines().find_map(declared).map(area_of);
        let i = match area {
            Some(a) => match titles.iter().position(|t| *t == a) {
                Some(i) => i,
                None => {
                    titles.push(a);
                    titles.len() - 1
                }
            },
            None => 0,
        };
        func_area.push(i);
    }
    // Each type's area: the first that uses it, found from the last type back (a type uses only
    // types cbindgen wrote before it).
    let last = titles.len() - 1;
    let mut type_area = vec![last; types.len()];
    for t in (0..types.len()).rev() {
        let Some(name) = type_name(types[t]) else {
            continue;
        };
        let by_functions = functions
            .iter()
            .zip(&func_area)
            .filter(|(f, _)| names(f, name))
            .map(|(_, &a)| a);
        let by_types = (t + 1..types.len())
            .filter(|&u| names(types[u], name))
            .map(|u| type_area[u]);
        if let Some(a) = by_functions.chain(by_types).min() {
            type_area[t] = a;
        }
    }
    let mut out = top.join("\n\n");
    out.push_str("\n\n");
    out.push_str(OPEN);
    for (i, title) in titles.iter().enumerate() {
        let mine: Vec<&str> = types
            .iter()
            .zip(&type_area)
            .filter(|(_, a)| **a == i)
            .map(|(b, _)| *b)
            .chain(
                functions
                    .iter()
                    .zip(&func_area)
                    .filter(|(_, a)| **a == i)
                    .map(|(b, _)| *b),
            )
            .collect();
        if mine.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(&section(title));
        out.push_str("\n\n");
        out.push_str(&mine.join("\n\n"));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(after);
    out
}

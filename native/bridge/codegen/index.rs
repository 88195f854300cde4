//! The index at the top of `include/tickreel.h`: the header's areas (the error channel first),
//! each with the line of its first declaration and its functions, generated from the header
//! cbindgen wrote, so that it cannot drift from it.

/// Areas in header order: a title and the name prefixes (after `tickreel_`) of its functions.
pub const AREAS: &[(&str, &[&str])] = &[
    (
        "Errors and the library",
        &["last_error", "result", "version", "handle", "features"],
    ),
    ("Results later (TickreelPending)", &["pending"]),
    ("Tick batches (TickreelBatch)", &["batch"]),
    (
        "Live recording (TickreelEngine, TickreelRecorder)",
        &["engine", "recorder"],
    ),
    (
        "Ghosts (TickreelGhost, TickreelGhostCursor, TickreelLiveDelta, TickreelGhostSet, \
         TickreelGoldSplits)",
        &["ghost", "live_delta", "gold_splits"],
    ),
    ("Playback (TickreelPlayhead)", &["playhead"]),
    ("Reading recordings (TickreelReader)", &["reader"]),
    ("Decoded events (TickreelEvents)", &["events"]),
    ("The world at a tick (TickreelWorldState)", &["world_state"]),
    ("Shadow play (TickreelShadowBuffer)", &["shadow", "report"]),
    ("Writing recordings (TickreelReelWriter)", &["reel"]),
    ("Compression dictionaries", &["dictionary"]),
    (
        "Object storage (TickreelObjectOptions, TickreelLiveShipper; Cargo feature \"object\")",
        &["object", "live_shipper"],
    ),
    (
        "Catalog (TickreelCatalog; Cargo feature \"catalog\")",
        &["catalog"],
    ),
];

/// The name of the function a header line declares, if it declares one.
pub fn declared(line: &str) -> Option<&str> {
    if line.starts_with([' ', '*', '/', '#']) || line.starts_with("typedef") {
        return None;
    }
    let at = line.find("tickreel_")?;
    let rest = &line[at..];
    let end = rest.find('(')?;
    Some(&rest[..end]).filter(|n| n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// The area of a function: the first whose prefix it has, or its own prefix.
pub fn area_of(name: &str) -> String {
    let bare = name.trim_start_matches("tickreel_");
    AREAS
        .iter()
        .find(|(_, prefixes)| prefixes.iter().any(|p| bare.starts_with(p)))
        .map_or_else(
            || bare.split('_').next().unwrap_or(bare).to_owned(),
            |(title, _)| (*title).to_owned(),
        )
}

/// The index comment for `header` when it is inserted `offset` lines before the header's lines.
fn index(header: &str, offset: usize) -> String {
    let mut types = None;
    let mut sections = false;
    // (area, first line, functions), in order of first appearance.
    let mut areas: Vec<(String, usize, Vec<&str>)> = Vec::new();
    for (i, line) in header.lines().enumerate() {
        let number = i + 1 + offset;
        if types.is_none() && line.starts_with("typedef struct") {
            types = Some(number);
        }
        // An area's section comment ([`section`], written by `codegen::areas`): the area starts
        // there, with its types.
        if let Some(title) = section_title(line) {
            sections = true;
            areas.push((title.to_owned(), number, Vec::new()));
            continue;
        }
        let Some(name) = declared(line) else { continue };
        let area = area_of(name);
        match areas.iter_mut().find(|(a, ..)| *a == area) {
            Some((.., names)) => names.push(name),
            None => areas.push((area, number, vec![name])),
        }
    }
    let mut out = String::from("/*\n * Index (line numbers in this file).\n");
    if sections {
        out.push_str(
            " *   Constants and result codes first; then each area, the error channel first: its\n *   handles and structs, then its functions:\n",
        );
    } else if let Some(n) = types {
        out.push_str(&format!(
            " *   Constants and result codes first; handles and structs from line {n}; then the\n *   functions by area, the error channel first:\n"
        ));
    }
    for (area, first, names) in &areas {
        out.push_str(&format!(" *   {area}: line {first}\n"));
        let mut line = String::from(" *      ");
        for (k, name) in names.iter().enumerate() {
            let item = if k + 1 < names.len() {
                format!("{name}, ")
            } else {
                (*name).to_owned()
            };
            if line.len() + item.trim_end().len() > 100 {
                out.push_str(line.trim_end());
                out.push('\n');
                line = String::from(" *      ");
            }
            line.push_str(&item);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(" */\n\n");
    out
}

/// `header` with the index inserted after its opening comment (at the top if it has none).
pub fn with_index(header: &str) -> String {
    let split = header.find(" */\n").map_or(0, |i| i + 4);
    let (head, rest) = header.split_at(split);
    let rest = rest.trim_start_matches('\n');
    let before = head.lines().count() + usize::from(split > 0);
    // The index's own length moves the lines after it; its length does not depend on them but
    // through the width of the numbers, so a few rounds settle it.
    let mut len = 0;
    let mut idx = String::new();
    for _ in 0..4 {
        idx = index(rest, before + len);
        let new_len = idx.lines().count();
        if new_len == len {
            break;
        }
        len = new_len;
    }
    let blank = if split > 0 { "\n" } else { "" };
    format!("{head}{blank}{idx}{rest}")
}

/// The section comment that opens an area (`with_index` finds areas by it).
pub fn section(title: &str) -> String {
    format!("/* ---- {title} ---- */")
}

/// The title of a section comment line, if the line is one.
pub fn section_title(line: &str) -> Option<&str> {
    line.strip_prefix("/* ---- ")?.strip_suffix(" ---- */")
}

//! The SVG that `render` and `ghost --plot` write, read back: a small DOM over quick-xml (strict:
//! end tags must match, one root, entities resolved), and the shapes the tests look for.
#![allow(dead_code)]

use std::collections::BTreeMap;

use quick_xml::events::Event as Xml;

#[derive(Debug, Default, Clone)]
pub struct El {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
    pub children: Vec<El>,
    pub text: String,
}

impl El {
    pub fn attr(&self, k: &str) -> &str {
        self.attrs.get(k).map_or("", String::as_str)
    }
    /// Every element below (and including) this one, depth first.
    pub fn all(&self) -> Vec<&El> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.all());
        }
        out
    }
    pub fn find(&self, pred: impl Fn(&El) -> bool) -> Vec<&El> {
        self.all().into_iter().filter(|e| pred(e)).collect()
    }
    pub fn has_class(&self, c: &str) -> bool {
        self.attr("class").split(' ').any(|x| x == c)
    }
}

/// Parses `doc` strictly (end tags must match, one root); panics with the parser's error.
pub fn parse(doc: &str) -> El {
    let mut r = quick_xml::Reader::from_str(doc);
    let mut stack: Vec<El> = vec![El::default()];
    let open = |e: &quick_xml::events::BytesStart| El {
        name: String::from_utf8(e.name().as_ref().to_vec()).unwrap(),
        attrs: e
            .attributes()
            .map(|a| {
                let a = a.expect("a well-formed attribute");
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                        .expect("a well-formed attribute value")
                        .into_owned(),
                )
            })
            .collect(),
        ..El::default()
    };
    loop {
        match r.read_event().expect("well-formed XML") {
            Xml::Start(e) => stack.push(open(&e)),
            Xml::Empty(e) => stack.last_mut().unwrap().children.push(open(&e)),
            Xml::End(_) => {
                let el = stack.pop().unwrap();
                stack.last_mut().unwrap().children.push(el);
            }
            Xml::Text(t) => stack.last_mut().unwrap().text += &t.decode().unwrap(),
            Xml::GeneralRef(g) => {
                let s = match g.resolve_char_ref().unwrap() {
                    Some(c) => c.to_string(),
                    None => {
                        let name = g.decode().unwrap();
                        quick_xml::escape::resolve_predefined_entity(&name)
                            .unwrap_or_else(|| panic!("unknown entity &{name};"))
                            .to_string()
                    }
                };
                stack.last_mut().unwrap().text += &s;
            }
            Xml::Eof => break,
            _ => {}
        }
    }
    assert_eq!(stack.len(), 1, "unclosed elements");
    let mut doc = stack.pop().unwrap();
    assert_eq!(doc.children.len(), 1, "one root element");
    let root = doc.children.pop().unwrap();
    assert_eq!(root.name, "svg");
    assert_eq!(root.attr("xmlns"), "http://www.w3.org/2000/svg");
    root
}

/// The drawn `<path class="path">` of each entity, by entity id.
pub fn paths(svg: &El) -> BTreeMap<u32, &El> {
    svg.find(|e| e.name == "path" && e.has_class("path"))
        .into_iter()
        .map(|p| (p.attr("data-entity").parse().unwrap(), p))
        .collect()
}

/// A path's `d` as stretches of points: each `M` starts one, and the pairs after it are its
/// points (implicit linetos; an explicit `L` is accepted too).
pub fn stretches(d: &str) -> Vec<Vec<[f64; 2]>> {
    d.split('M')
        .filter(|part| !part.trim().is_empty())
        .map(|part| {
            let nums: Vec<f64> = part
                .replace('L', " ")
                .split_whitespace()
                .map(|n| {
                    n.parse()
                        .unwrap_or_else(|_| panic!("not a number: {n} in {d}"))
                })
                .collect();
            assert!(nums.len().is_multiple_of(2), "pairs of coordinates: {part}");
            nums.chunks(2).map(|c| [c[0], c[1]]).collect()
        })
        .collect()
}

/// The ticks of an entity's teleports, from its `g.teleports` group.
pub fn teleport_ticks(svg: &El, entity: u32) -> Vec<u32> {
    let groups =
        svg.find(|e| e.has_class("teleports") && e.attr("data-entity") == entity.to_string());
    assert!(groups.len() <= 1);
    groups.first().map_or(Vec::new(), |g| {
        g.attr("data-ticks")
            .split(' ')
            .map(|t| t.parse().unwrap())
            .collect()
    })
}

pub fn count_points(p: &El) -> (usize, usize) {
    let s = stretches(p.attr("d"));
    let points: usize = s.iter().map(Vec::len).sum();
    assert_eq!(p.attr("data-points"), points.to_string());
    assert_eq!(p.attr("data-segments"), s.len().to_string());
    (points, s.len())
}

/// The boxes of the texts of class `label` (as `tickreel::svg::labels` estimates them: an
/// average glyph of 0.62 em, 0.8 em above the baseline and 0.2 below), with their texts; `size`
/// gives a label's font size in pixels.
pub fn label_boxes(svg: &El, size: impl Fn(&El) -> f64) -> Vec<(String, [f64; 4])> {
    svg.find(|e| e.name == "text" && e.has_class("label"))
        .into_iter()
        .map(|t| {
            let px = size(t);
            let (x, y): (f64, f64) = (t.attr("x").parse().unwrap(), t.attr("y").parse().unwrap());
            let w = t.text.chars().count() as f64 * px * 0.62;
            let x0 = match t.attr("text-anchor") {
                "middle" => x - w / 2.0,
                "end" => x - w,
                _ => x,
            };
            (t.text.clone(), [x0, y - px * 0.8, x0 + w, y + px * 0.2])
        })
        .collect()
}

/// Panics naming two labels whose boxes overlap.
pub fn assert_no_overlap(boxes: &[(String, [f64; 4])]) {
    for (i, (ta, a)) in boxes.iter().enumerate() {
        for (tb, b) in &boxes[i + 1..] {
            let w = a[2].min(b[2]) - a[0].max(b[0]);
            let h = a[3].min(b[3]) - a[1].max(b[1]);
            assert!(
                w <= 1e-6 || h <= 1e-6,
                "labels {ta:?} {a:?} and {tb:?} {b:?} overlap"
            );
        }
    }
}

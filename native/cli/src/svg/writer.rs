//! [`Svg`]: a small writer of SVG documents. Elements are opened, filled and closed in order;
//! every attribute value and every text is escaped ([`escape`]), so that a name taken from a
//! recording (a player called `<script>` or `"&"`) can never break the document or inject markup.

use std::fmt::Write as _;

/// The SVG namespace.
pub const NS: &str = "http://www.w3.org/2000/svg";

/// Text or an attribute value with `&`, `<`, `>`, `"` and `'` escaped, and characters XML 1.0
/// does not allow (control characters other than tab, newline and carriage return, unpaired
/// surrogates cannot occur in a `str`, U+FFFE and U+FFFF) replaced by U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A number for a coordinate: at most two decimals, no trailing zeros, `-0` as `0`.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "0".into();
    }
    let mut s = format!("{:.2}", v);
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    if s == "-0" { "0".into() } else { s }
}

/// A number with at most one decimal (path coordinates: a tenth of a pixel).
pub fn num1(v: f64) -> String {
    num((v * 10.0).round() / 10.0)
}

/// An SVG document being written.
pub struct Svg {
    buf: String,
    open: Vec<&'static str>,
}

impl Svg {
    /// A document of `width` x `height` pixels (the viewBox has the same size).
    pub fn new(width: f64, height: f64) -> Svg {
        let mut s = Svg {
            buf: String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
            open: Vec::new(),
        };
        let (w, h) = (num(width), num(height));
        s.open(
            "svg",
            &[
                ("xmlns", NS),
                ("width", &w),
                ("height", &h),
                ("viewBox", &format!("0 0 {w} {h}")),
            ],
        );
        s
    }

    fn start(&mut self, tag: &str, attrs: &[(&str, &str)]) {
        for _ in 0..self.open.len() {
            self.buf.push(' ');
        }
        self.buf.push('<');
        self.buf.push_str(tag);
        for (k, v) in attrs {
            let _ = write!(self.buf, " {k}=\"{}\"", escape(v));
        }
    }

    /// Opens `<tag attrs>`; [`Svg::close`] ends it.
    pub fn open(&mut self, tag: &'static str, attrs: &[(&str, &str)]) {
        self.start(tag, attrs);
        self.buf.push_str(">\n");
        self.open.push(tag);
    }

    /// Closes the innermost open element.
    pub fn close(&mut self) {
        if let Some(tag) = self.open.pop() {
            for _ in 0..self.open.len() {
                self.buf.push(' ');
            }
            let _ = writeln!(self.buf, "</{tag}>");
        }
    }

    /// An empty element, `<tag attrs/>`.
    pub fn leaf(&mut self, tag: &str, attrs: &[(&str, &str)]) {
        self.start(tag, attrs);
        self.buf.push_str("/>\n");
    }

    /// An element holding text only, `<tag attrs>text</tag>`.
    pub fn text(&mut self, tag: &str, attrs: &[(&str, &str)], text: &str) {
        self.start(tag, attrs);
        let _ = writeln!(self.buf, ">{}</{tag}>", escape(text));
    }

    /// Closes every open element and returns the document.
    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("<a href=\"x\">&'\u{1}\tb"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\u{fffd}\tb"
        );
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.256), "1.26");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(-2.5), "-2.5");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num1(12.345), "12.3");
        assert_eq!(num1(-0.04), "0");
    }

    #[test]
    fn nests_and_closes_everything() {
        let mut s = Svg::new(10.0, 20.0);
        s.open("g", &[("id", "a&b")]);
        s.text("text", &[("x", "1")], "Steve <3");
        let doc = s.finish();
        assert!(doc.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"20\" viewBox=\"0 0 10 20\">"));
        assert!(
            doc.contains(
                " <g id=\"a&amp;b\">\n  <text x=\"1\">Steve &lt;3</text>\n </g>\n</svg>\n"
            )
        );
    }
}

//! Staff tokens: the named access tokens a server accepts (`--token NAME=TOKEN`, repeated; a
//! file of `NAME TOKEN` lines; `TICKREEL_TOKEN`). The name says who a request comes from — the
//! audit log of report views ([`super::audit`]) and a decision on a report record it — and the
//! token proves it. Tokens are never printed or put in an error: a mistake is told by the
//! entry's name or line number.

/// The shortest token accepted.
pub const TOKEN_MIN_CHARS: usize = 16;
/// The longest token accepted.
pub const TOKEN_MAX_CHARS: usize = 256;
/// The longest staff name.
pub const NAME_MAX_CHARS: usize = 64;
/// Most tokens one server accepts.
pub const MAX_TOKENS: usize = 1_000;
/// The name of a token given without one (`--token TOKEN`, as before names).
pub const UNNAMED: &str = "staff";

/// Who a request comes from: the name of the token it carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staff(pub String);

/// The accepted tokens, by name (none: no token is asked for).
#[derive(Debug, Clone, Default)]
pub struct StaffTokens {
    tokens: Vec<(String, String)>,
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= NAME_MAX_CHARS
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_.@".contains(c))
}

impl StaffTokens {
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The names, in the order given.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|(n, _)| n.as_str())
    }

    /// Adds `token` under `name` (`where_` tells the operator which entry is wrong, without
    /// the token). Refuses a bad name, a short or long token, one with spaces or control
    /// characters, a name or a token given twice, and more than [`MAX_TOKENS`].
    pub fn add(&mut self, name: &str, token: &str, where_: &str) -> Result<(), String> {
        if !name_ok(name) {
            return Err(format!(
                "{where_}: a staff name is 1 to {NAME_MAX_CHARS} letters, digits or -_.@"
            ));
        }
        let n = token.chars().count();
        if n < TOKEN_MIN_CHARS {
            return Err(format!(
                "{where_}: the token of {name} is too short: at least {TOKEN_MIN_CHARS} characters"
            ));
        }
        if n > TOKEN_MAX_CHARS {
            return Err(format!(
                "{where_}: the token of {name} is too long: at most {TOKEN_MAX_CHARS} characters"
            ));
        }
        // A header value is trimmed, so a token of spaces would be matched by an empty one.
        if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "{where_}: the token of {name} must not contain spaces or control characters"
            ));
        }
        if self.tokens.iter().any(|(n, _)| n == name) {
            return Err(format!("{where_}: the name {name} is given twice"));
        }
        if self.tokens.iter().any(|(_, t)| t == token) {
            return Err(format!(
                "{where_}: the token of {name} is also another name's: each name needs its own"
            ));
        }
        if self.tokens.len() >= MAX_TOKENS {
            return Err(format!("{where_}: more than {MAX_TOKENS} tokens"));
        }
        self.tokens.push((name.to_string(), token.to_string()));
        Ok(())
    }

    /// Adds one `--token` value: `NAME=TOKEN`, or a bare `TOKEN` named [`UNNAMED`].
    pub fn add_arg(&mut self, value: &str, where_: &str) -> Result<(), String> {
        match value.split_once('=') {
            Some((name, token)) if name_ok(name) => self.add(name, token, where_),
            _ => self.add(UNNAMED, value, where_),
        }
    }

    /// Adds the entries of `text`: one `NAME TOKEN` (or `NAME=TOKEN`) a line, blank lines and
    /// lines starting with `#` skipped; `origin` names the file in errors (with the line).
    pub fn add_lines(&mut self, text: &str, origin: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{origin} line {}", i + 1);
            let Some((name, token)) = line
                .split_once(char::is_whitespace)
                .or_else(|| line.split_once('='))
            else {
                return Err(format!("{at}: expected NAME TOKEN"));
            };
            self.add(name.trim(), token.trim(), &at)?;
        }
        Ok(())
    }

    /// The staff member whose token `given` is, comparing with every token in full (the time
    /// taken tells nothing of which one, or how much of it, matched).
    pub fn who(&self, given: &str) -> Option<Staff> {
        let mut found = None;
        for (name, token) in &self.tokens {
            if same(given.as_bytes(), token.as_bytes()) && found.is_none() {
                found = Some(Staff(name.clone()));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "alice-token-0123456789";
    const B: &str = "bob-token-0123456789ab";

    #[test]
    fn named_tokens_from_arguments_and_lines() {
        let mut t = StaffTokens::default();
        t.add_arg(&format!("alice={A}"), "--token").unwrap();
        t.add_lines(&format!("# staff\n\nbob {B}\n"), "tokens.txt")
            .unwrap();
        assert_eq!(t.who(A), Some(Staff("alice".into())));
        assert_eq!(t.who(B), Some(Staff("bob".into())));
        assert_eq!(t.who("alice-token-012345678"), None);
        assert_eq!(t.who(""), None);
        let mut bare = StaffTokens::default();
        bare.add_arg("=just-a-token-0123456789", "--token").unwrap();
        assert_eq!(
            bare.who("=just-a-token-0123456789"),
            Some(Staff(UNNAMED.into()))
        );
    }

    #[test]
    fn bad_entries_are_refused_without_showing_the_token() {
        let mut t = StaffTokens::default();
        t.add("alice", A, "x").unwrap();
        for (name, token) in [
            ("alice", B),
            ("carol", A),
            ("", B),
            ("a b", B),
            ("dave", "tiny-tkn"),
            ("erin", "has space in it 0123"),
        ] {
            let e = t.add(name, token, "x").unwrap_err();
            assert!(!e.contains(token), "{e}");
        }
        let e = t.add_lines(&format!("carol\n{B}"), "f").unwrap_err();
        assert!(e.starts_with("f line 1"), "{e}");
        assert_eq!(t.len(), 1);
    }
}

//! Staff tokens: the named access tokens a server accepts (a file of `NAME [ROLE] TOKEN` lines;
//! `TICKREEL_TOKEN`'s `NAME[:ROLE]=TOKEN` entries; the catalog's staff, looked up by the server;
//! never the command line). The name says who a request comes
//! from — the audit log of report views ([`super::audit`]) and a decision on a report record
//! it — the token proves it, and the [`Role`] says what the request may do. Tokens are never
//! printed or put in an error: a mistake is told by the entry's name or line number.

/// The shortest token accepted.
pub const TOKEN_MIN_CHARS: usize = 16;
/// The longest token accepted.
pub const TOKEN_MAX_CHARS: usize = 256;
/// The longest staff name.
pub const NAME_MAX_CHARS: usize = 64;
/// Most tokens one server accepts.
pub const MAX_TOKENS: usize = 1_000;
/// The name of a token given without one (a bare `TICKREEL_TOKEN`, as before names).
pub const UNNAMED: &str = "staff";

/// What a member of staff may do. Ordered: each role may do all the roles before it may.
///
/// - `Reviewer`: watches the reports assigned to them and records a vote on each.
/// - `Moderator`: all reports; decides a report's verdict, marks known outcomes (calibration),
///   sees reviewers' scores and the audit log.
/// - `Admin`: a moderator who also sets the review rule and the retention policy, and runs
///   retention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Reviewer,
    Moderator,
    Admin,
}

impl Role {
    /// Every role, least first.
    pub const ALL: [Role; 3] = [Role::Reviewer, Role::Moderator, Role::Admin];

    /// The role of an entry that names none: a moderator (what a staff token could do before
    /// roles: open reports and decide on them).
    pub const DEFAULT: Role = Role::Moderator;

    /// `reviewer`, `moderator` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reviewer => "reviewer",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    /// The role named `s` (as [`Role::as_str`] writes it).
    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether this role may do what `needed` may.
    pub fn at_least(self, needed: Role) -> bool {
        self >= needed
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a request comes from: the name of the token it carried, and its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staff {
    pub name: String,
    pub role: Role,
}

impl Staff {
    pub fn new(name: impl Into<String>, role: Role) -> Staff {
        Staff {
            name: name.into(),
            role,
        }
    }
}

/// One accepted token.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    role: Role,
    token: String,
}

/// The accepted tokens, by name (none: no token is asked for).
#[derive(Debug, Clone, Default)]
pub struct StaffTokens {
    tokens: Vec<Entry>,
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
        self.tokens.iter().map(|e| e.name.as_str())
    }

    /// The names and roles, in the order given.
    pub fn roles(&self) -> impl Iterator<Item = (&str, Role)> {
        self.tokens.iter().map(|e| (e.name.as_str(), e.role))
    }

    /// Adds `token` under `name` with `role` (`where_` tells the operator which entry is wrong,
    /// without the token). Refuses a bad name, a short or long token, one with spaces or control
    /// characters, a name or a token given twice, and more than [`MAX_TOKENS`].
    pub fn add(&mut self, name: &str, role: Role, token: &str, where_: &str) -> Result<(), String> {
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
        if self.tokens.iter().any(|e| e.name == name) {
            return Err(format!("{where_}: the name {name} is given twice"));
        }
        if self.tokens.iter().any(|e| e.token == token) {
            return Err(format!(
                "{where_}: the token of {name} is also another name's: each name needs its own"
            ));
        }
        if self.tokens.len() >= MAX_TOKENS {
            return Err(format!("{where_}: more than {MAX_TOKENS} tokens"));
        }
        self.tokens.push(Entry {
            name: name.to_string(),
            role,
            token: token.to_string(),
        });
        Ok(())
    }

    /// Adds one `NAME=TOKEN` value (`NAME:ROLE=TOKEN` names its role; without, the role is
    /// [`Role::DEFAULT`]), or a bare `TOKEN` named [`UNNAMED`].
    pub fn add_arg(&mut self, value: &str, where_: &str) -> Result<(), String> {
        if let Some((left, token)) = value.split_once('=') {
            let (name, role) = match left.split_once(':') {
                Some((name, role)) => (name, Some(role)),
                None => (left, None),
            };
            if name_ok(name) {
                let role = match role {
                    None => Role::DEFAULT,
                    Some(r) => Role::parse(r).ok_or_else(|| bad_role(where_, name))?,
                };
                return self.add(name, role, token, where_);
            }
        }
        self.add(UNNAMED, Role::DEFAULT, value, where_)
    }

    /// Adds the entries of `text`: one `NAME ROLE TOKEN`, `NAME TOKEN` (the role is
    /// [`Role::DEFAULT`]) or `NAME=TOKEN` a line, blank lines and lines starting with `#`
    /// skipped; `origin` names the file in errors (with the line).
    pub fn add_lines(&mut self, text: &str, origin: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{origin} line {}", i + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[..] {
                [name, role, token] => {
                    let role = Role::parse(role).ok_or_else(|| bad_role(&at, name))?;
                    self.add(name, role, token, &at)?;
                }
                [name, token] => self.add(name, Role::DEFAULT, token, &at)?,
                [one] => match one.split_once('=') {
                    Some((name, token)) => self.add(name, Role::DEFAULT, token, &at)?,
                    None => return Err(format!("{at}: expected NAME ROLE TOKEN")),
                },
                _ => return Err(format!("{at}: expected NAME ROLE TOKEN")),
            }
        }
        Ok(())
    }

    /// The staff member whose token `given` is, comparing with every token in full (the time
    /// taken tells nothing of which one, or how much of it, matched).
    pub fn who(&self, given: &str) -> Option<Staff> {
        let mut found = None;
        for e in &self.tokens {
            if same(given.as_bytes(), e.token.as_bytes()) && found.is_none() {
                found = Some(Staff::new(e.name.clone(), e.role));
            }
        }
        found
    }
}

fn bad_role(where_: &str, name: &str) -> String {
    format!("{where_}: the role of {name} is one of reviewer, moderator, admin")
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "alice-token-0123456789";
    const B: &str = "bob-token-0123456789ab";

    #[test]
    fn named_tokens_from_arguments_and_lines() {
        let mut t = StaffTokens::default();
        t.add_arg(&format!("alice={A}"), "TICKREEL_TOKEN").unwrap();
        t.add_lines(&format!("# staff\n\nbob {B}\n"), "tokens.txt")
            .unwrap();
        assert_eq!(t.who(A), Some(Staff::new("alice", Role::DEFAULT)));
        assert_eq!(t.who(B), Some(Staff::new("bob", Role::DEFAULT)));
        assert_eq!(t.who("alice-token-012345678"), None);
        assert_eq!(t.who(""), None);
        let mut bare = StaffTokens::default();
        bare.add_arg("=just-a-token-0123456789", "TICKREEL_TOKEN")
            .unwrap();
        assert_eq!(
            bare.who("=just-a-token-0123456789"),
            Some(Staff::new(UNNAMED, Role::DEFAULT))
        );
    }

    #[test]
    fn roles_are_read_from_lines_and_values() {
        const C: &str = "carol-token-0123456789";
        const D: &str = "dave-token-0123456789ab";
        let mut t = StaffTokens::default();
        t.add_lines(
            &format!("alice reviewer {A}\nbob admin {B}\ncarol {C}\n"),
            "tokens.txt",
        )
        .unwrap();
        t.add_arg(&format!("dave:reviewer={D}"), "env").unwrap();
        assert_eq!(t.who(A), Some(Staff::new("alice", Role::Reviewer)));
        assert_eq!(t.who(B), Some(Staff::new("bob", Role::Admin)));
        assert_eq!(t.who(C), Some(Staff::new("carol", Role::Moderator)));
        assert_eq!(t.who(D), Some(Staff::new("dave", Role::Reviewer)));
        assert!(Role::Admin.at_least(Role::Moderator));
        assert!(!Role::Reviewer.at_least(Role::Moderator));
        let mut bad = StaffTokens::default();
        let e = bad.add_lines(&format!("erin boss {A}"), "f").unwrap_err();
        assert!(e.contains("role") && !e.contains(A), "{e}");
        let e = bad.add_arg(&format!("erin:boss={A}"), "env").unwrap_err();
        assert!(e.contains("role") && !e.contains(A), "{e}");
    }

    #[test]
    fn bad_entries_are_refused_without_showing_the_token() {
        let mut t = StaffTokens::default();
        t.add("alice", Role::Moderator, A, "x").unwrap();
        for (name, token) in [
            ("alice", B),
            ("carol", A),
            ("", B),
            ("a b", B),
            ("dave", "tiny-tkn"),
            ("erin", "has space in it 0123"),
        ] {
            let e = t.add(name, Role::Moderator, token, "x").unwrap_err();
            assert!(!e.contains(token), "{e}");
        }
        let e = t.add_lines(&format!("carol\n{B}"), "f").unwrap_err();
        assert!(e.starts_with("f line 1"), "{e}");
        assert_eq!(t.len(), 1);
    }
}

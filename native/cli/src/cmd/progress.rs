//! A progress bar on a terminal (stderr), nothing when output is piped or redirected.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Whether to draw a bar: only when both stdout and stderr are terminals, so that
/// `tickreel compact A B | cat` (or `2>log`) stays quiet.
pub fn show_bar(stdout_tty: bool, stderr_tty: bool) -> bool {
    stdout_tty && stderr_tty
}

/// A bar for `total` steps labelled `what` on stderr, hidden unless [`show_bar`] allows it.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    if !show_bar(
        std::io::stdout().is_terminal(),
        std::io::stderr().is_terminal(),
    ) {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(total);
    b.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    b.set_message(what.to_string());
    b
}

#[cfg(test)]
mod tests {
    use super::show_bar;

    #[test]
    fn bar_only_when_stdout_and_stderr_are_terminals() {
        assert!(show_bar(true, true));
        assert!(!show_bar(false, true), "stdout piped");
        assert!(!show_bar(true, false), "stderr redirected");
        assert!(!show_bar(false, false));
    }
}

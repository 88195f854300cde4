//! A progress bar on a terminal (stderr), nothing when output is piped.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar for `total` units of `unit`, hidden unless stderr is a terminal.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
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

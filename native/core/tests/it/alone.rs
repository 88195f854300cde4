//! Tests that measure the whole process (its threads, its open files, its peak memory, the bytes
//! live on its heap) need it to themselves, and this binary runs every test of the crate, two or
//! more at a time. Such a test begins with
//! `if !alone::in_own_process(module_path!(), "its_name") { return; }`: run by the harness as
//! usual, it starts this binary again as a child process that runs that one test and nothing else
//! (with [`heap::count_process`](crate::heap::count_process) on), and passes if the child passes;
//! in the child, the call returns true and the test goes on to measure.

use std::process::{Command, Stdio};

/// Set in the child process to the name of the test it runs.
const CHILD: &str = "TICKREEL_TEST_ALONE";

/// In the child process that runs `test` (a test function of `module`) alone: true, with the
/// process's heap counted. Elsewhere: runs that child, fails if the test failed there (or did not
/// run), prints what it printed, and returns false.
pub fn in_own_process(module: &str, test: &str) -> bool {
    // The harness names a test by its path below the crate root (`module_path!()` starts with it).
    let name = match module.split_once("::") {
        Some((_, path)) => format!("{path}::{test}"),
        None => test.to_string(),
    };
    if std::env::var_os(CHILD).is_some_and(|v| v == name.as_str()) {
        crate::heap::count_process();
        return true;
    }
    let out = Command::new(std::env::current_exe().expect("the path of this test binary"))
        .args(["--exact", &name, "--test-threads=1", "--nocapture"])
        .env(CHILD, &name)
        .stdin(Stdio::null())
        .output()
        .expect("run this test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(" 1 passed;"),
        "{name}, alone in a child process: {}\n{stdout}\n{stderr}",
        out.status
    );
    print!("{stdout}");
    eprint!("{stderr}");
    false
}

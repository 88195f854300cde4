//! The one panic guard of the bindings: a panic never crosses into C or the JVM.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `f`; a panic is caught and returned as its message.
///
/// The panic's payload is dropped under a second guard: only an exotic payload whose destructor
/// itself panics would unwind there, and that second payload is leaked rather than dropped.
///
/// Every entry point runs through here, so this is also where the core is told how to start its
/// threads ([`super::threads::install`]).
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    super::threads::install();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) => {
            let message = panic_message(&*payload);
            if let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
                std::mem::forget(again);
            }
            Err(message)
        }
    }
}

/// The message of a panic payload (`panic!("...")` gives a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct PanicsOnDrop;
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("and again while dropping");
        }
    }

    #[test]
    fn panics_become_messages() {
        assert_eq!(catch(|| 7), Ok(7));
        assert_eq!(
            catch(|| -> u8 { panic!("boom {}", 42) }),
            Err("boom 42".into())
        );
        assert_eq!(catch(|| -> u8 { panic!("static") }), Err("static".into()));
        let odd = catch(|| -> u8 { std::panic::panic_any(PanicsOnDrop) });
        assert_eq!(odd, Err("unknown panic payload".into()));
    }
}

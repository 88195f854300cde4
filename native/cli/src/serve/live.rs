//! Following a recording that is still being written: server-sent events (`/api/live`), one
//! `edge` event (`{"first_tick", "last_tick", "state"}`) each time the newest flushed tick or the
//! state changes. The recording's [`LiveFollower`](tickreel::play::LiveFollower) polls the live
//! directory; this stream only reads what it published. The stream ends after the recording is
//! finished (compacted into its final file) or lost (removed without one).

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use tickreel::play::FollowState;

use super::library::{Handle, edge};

/// How often the stream looks at the follower.
const POLL: Duration = Duration::from_millis(100);

/// The event stream of `h` (a finished file sends one event and ends).
pub fn stream(h: Handle) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let s = futures::stream::unfold((h, None::<String>, false), |(h, last, done)| async move {
        if done {
            return None;
        }
        loop {
            let state = h.live_state();
            let v = edge(&h);
            let text = v.to_string();
            let end = matches!(
                state,
                None | Some(FollowState::Finished | FollowState::Lost)
            );
            if last.as_deref() != Some(&text) {
                let ev = Event::default().event("edge").data(text.clone());
                return Some((Ok(ev), (h, Some(text), end)));
            }
            if end {
                return None;
            }
            tokio::time::sleep(POLL).await;
        }
    });
    Sse::new(s).keep_alive(KeepAlive::new().interval(Duration::from_secs(10)))
}

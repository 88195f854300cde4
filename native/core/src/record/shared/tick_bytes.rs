//! A submitted tick's bytes on their way to the writer: small batches travel inside the queue
//! slot itself, larger ones in a pooled buffer.
//!
//! A one-player recording's tick is a few dozen bytes. Carried inline, its submit takes no buffer
//! from the shared pool and reserves nothing of the engine's byte budget (the queue's own slots
//! bound what inline ticks hold): two shared cache lines fewer per submit.

/// Longest batch carried inline (keeps a queue message within 56 bytes).
pub(crate) const INLINE: usize = 38;

#[derive(Debug)]
pub(crate) enum TickBytes {
    Inline { len: u8, bytes: [u8; INLINE] },
    Pooled(Vec<u8>),
}

impl TickBytes {
    /// `batch` inline, if it fits.
    #[cfg(test)]
    pub(crate) fn inline(batch: &[u8]) -> Option<TickBytes> {
        let mut bytes = TickBytes::EMPTY;
        bytes.fill(batch).then_some(bytes)
    }

    /// No bytes, inline: [`TickBytes::fill`] puts a batch in.
    pub(crate) const EMPTY: TickBytes = TickBytes::Inline {
        len: 0,
        bytes: [0; INLINE],
    };

    /// Copies `batch` into this inline value where it lies, if it fits (`false`: it does not, or
    /// the value is not inline; it is left as it was). Where it lies: a value made elsewhere and
    /// moved here would be read back at once, in pieces that span the copy's stores, each piece
    /// waiting for those stores to reach the cache (see `Recorder::submit_queued`). Not inlined,
    /// so that the caller keeps its message whole in memory, as this call wrote it, instead of
    /// moving it field by field.
    #[inline(never)]
    pub(crate) fn fill(&mut self, batch: &[u8]) -> bool {
        let TickBytes::Inline { len, bytes } = self else {
            return false;
        };
        let Some(n) = u8::try_from(batch.len())
            .ok()
            .filter(|&l| usize::from(l) <= INLINE)
        else {
            return false;
        };
        *len = n;
        bytes[..batch.len()].copy_from_slice(batch);
        true
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            TickBytes::Inline { len, bytes } => &bytes[..usize::from(*len)],
            TickBytes::Pooled(b) => b,
        }
    }

    /// Bytes held of the engine's in-flight budget.
    pub(crate) fn budget_bytes(&self) -> usize {
        match self {
            TickBytes::Inline { .. } => 0,
            TickBytes::Pooled(b) => b.capacity(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_batches_go_inline_and_read_back() {
        let b: Vec<u8> = (0..INLINE as u8).collect();
        let t = TickBytes::inline(&b).expect("fits");
        assert_eq!(t.as_slice(), &b[..]);
        assert_eq!(t.budget_bytes(), 0);
        assert!(TickBytes::inline(&[0; INLINE + 1]).is_none());
        // Filled in place: a longer batch leaves it as it was; a pooled value takes nothing.
        let mut t = TickBytes::EMPTY;
        assert!(t.fill(&[7, 8, 9]));
        assert!(!t.fill(&[0; INLINE + 1]));
        assert_eq!(t.as_slice(), &[7, 8, 9]);
        assert!(!TickBytes::Pooled(Vec::new()).fill(&[1, 2]));
        assert_eq!(
            TickBytes::inline(&[1, 2]).expect("fits").as_slice(),
            &[1, 2]
        );
    }
}

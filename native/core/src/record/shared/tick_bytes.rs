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
    #[inline]
    pub(crate) fn inline(batch: &[u8]) -> Option<TickBytes> {
        let len = u8::try_from(batch.len())
            .ok()
            .filter(|&l| usize::from(l) <= INLINE)?;
        let mut bytes = [0u8; INLINE];
        bytes[..batch.len()].copy_from_slice(batch);
        Some(TickBytes::Inline { len, bytes })
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
        assert_eq!(
            TickBytes::inline(&[1, 2]).expect("fits").as_slice(),
            &[1, 2]
        );
    }
}

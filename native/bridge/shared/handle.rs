//! What makes a type of the neutral layer (`crate::api`) a handle type: its tag and its name, the
//! same in every binding. How a binding encodes a handle is its own (`crate::ffi::handle`: a
//! pointer-sized token to an opaque C type, which it names there for each type;
//! `crate::jni::handles`: a positive `long`); both keep the objects in [`super::registry`]. The C
//! token's bit layout ([`TokenLayout`]) is declared here, beside the tags it must hold, with both
//! pointer widths' layouts compiled and tested on every target.

use std::any::Any;

/// A Rust type that C and Java see through a handle.
pub(crate) trait HandleType: Any + Send + Sync + Sized {
    /// Type tag in a C token, nonzero and unique per type, at most the smallest C layout's
    /// [`TokenLayout::max_tag`] (`crate::ffi::handle` checks every tag at compile time).
    const TAG: u8;
    /// What C and Java call it, for messages.
    const NAME: &'static str;
}

/// How a C handle token packs a registry key and a type tag into a pointer-sized value, the
/// generation in the high bits (bit 63 or 31 on the left):
///
/// ```text
/// | generation | type tag | slot index |
/// ```
///
/// The registry is bounded by it: at most [`max_slots`](Self::max_slots) live handles, and a
/// slot is retired once its generation reaches [`max_generation`](Self::max_generation), so a
/// stale token never matches a later occupant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TokenLayout {
    pub(crate) index_bits: u32,
    pub(crate) tag_bits: u32,
    pub(crate) generation_bits: u32,
}

impl TokenLayout {
    /// 64-bit targets: 32-bit generation, 8-bit tag, 24-bit index (16,777,216 live handles,
    /// tags 1 to 255, 4,294,967,295 generations a slot).
    pub(crate) const BITS_64: TokenLayout = TokenLayout {
        index_bits: 24,
        tag_bits: 8,
        generation_bits: 32,
    };
    /// 32-bit targets: 12-bit generation, 6-bit tag, 14-bit index (16,384 live handles, tags 1
    /// to 63, 4,095 generations a slot: about 67 million handles over a process's life when
    /// every slot is used).
    pub(crate) const BITS_32: TokenLayout = TokenLayout {
        index_bits: 14,
        tag_bits: 6,
        generation_bits: 12,
    };
    /// This target's layout.
    #[cfg(target_pointer_width = "64")]
    pub(crate) const NATIVE: TokenLayout = TokenLayout::BITS_64;
    /// This target's layout.
    #[cfg(target_pointer_width = "32")]
    pub(crate) const NATIVE: TokenLayout = TokenLayout::BITS_32;

    /// Bits of a token: the pointer width the layout is for.
    pub(crate) const fn bits(self) -> u32 {
        self.index_bits + self.tag_bits + self.generation_bits
    }

    /// Most live handles at once.
    pub(crate) const fn max_slots(self) -> usize {
        1 << self.index_bits
    }

    /// The highest type tag a token holds (tags start at 1).
    pub(crate) const fn max_tag(self) -> u8 {
        ((1u32 << self.tag_bits) - 1) as u8
    }

    /// The highest generation a token holds (generations start at 1).
    pub(crate) const fn max_generation(self) -> u64 {
        (1 << self.generation_bits) - 1
    }

    /// The token of `(generation, tag, index)`, each within the layout's bounds.
    pub(crate) const fn pack(self, generation: u64, tag: u8, index: usize) -> u64 {
        (generation << (self.index_bits + self.tag_bits))
            | ((tag as u64) << self.index_bits)
            | index as u64
    }

    /// `(generation, tag, index)` of a token of [`bits`](Self::bits) bits.
    pub(crate) const fn unpack(self, token: u64) -> (u64, u8, usize) {
        (
            token >> (self.index_bits + self.tag_bits),
            ((token >> self.index_bits) & self.max_tag() as u64) as u8,
            (token & (self.max_slots() as u64 - 1)) as usize,
        )
    }
}

const _: () = assert!(TokenLayout::NATIVE.bits() == usize::BITS);
const _: () = assert!(TokenLayout::BITS_64.bits() == 64 && TokenLayout::BITS_32.bits() == 32);

#[cfg(test)]
mod tests {
    use super::*;

    /// Both widths' layouts, whatever the target: every field round-trips at its bounds, the
    /// fields do not overlap, the largest token fits the pointer width, no token is NULL.
    #[test]
    fn both_token_layouts_pack_within_their_width() {
        for (layout, max_token) in [
            (TokenLayout::BITS_64, u64::MAX),
            (TokenLayout::BITS_32, u64::from(u32::MAX)),
        ] {
            let (g, t, i) = (
                layout.max_generation(),
                layout.max_tag(),
                layout.max_slots() - 1,
            );
            assert_eq!(layout.pack(g, t, i), max_token, "{layout:?}");
            assert_eq!(layout.unpack(layout.pack(g, t, i)), (g, t, i));
            assert_eq!(layout.unpack(layout.pack(1, 3, 0)), (1, 3, 0));
            assert_eq!(layout.unpack(layout.pack(g, 0, 0)), (g, 0, 0));
            assert_eq!(layout.unpack(layout.pack(0, t, 0)), (0, t, 0));
            assert_eq!(layout.unpack(layout.pack(0, 0, i)), (0, 0, i));
            assert_eq!(
                layout.pack(g, 0, 0) & layout.pack(0, t, 0),
                0,
                "generation and tag overlap"
            );
            assert_eq!(
                layout.pack(0, t, 0) & layout.pack(0, 0, i),
                0,
                "tag and index overlap"
            );
            assert_ne!(layout.pack(1, 0, 0), 0, "generation 1 is never NULL");
        }
        assert_eq!(TokenLayout::BITS_32.max_tag(), 63);
        assert_eq!(TokenLayout::BITS_32.max_slots(), 16_384);
        assert_eq!(TokenLayout::BITS_32.max_generation(), 4_095);
        assert_eq!(TokenLayout::BITS_64.max_tag(), 255);
        assert_eq!(TokenLayout::NATIVE.bits(), usize::BITS);
    }
}

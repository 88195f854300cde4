//! Gold splits (`TickreelGoldSplits`): a live attempt's splits against the player's best
//! segments, and the best possible time.
//!
//! The operations are `crate::api::ghost`; here is their handle's C type (the reading,
//! `TickreelGoldSplit`, is the record `crate::api::ghost::GoldReading`).

/// A live attempt's splits against the player's gold segments. Opaque: create with
/// `tickreel_gold_splits_new`, release with `tickreel_gold_splits_free`.
pub struct TickreelGoldSplits {
    _private: [u8; 0],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::generated::ghost::*;
    use crate::ffi::generated::records::TickreelGoldSplit;
    use crate::ffi::result::TickreelResult;

    const OK: TickreelResult = TickreelResult::Ok;

    fn checkpoint(g: *mut TickreelGoldSplits, cp: u32, live: f64) -> TickreelGoldSplit {
        let mut s = TickreelGoldSplit::default();
        // SAFETY: `s` is writable.
        assert_eq!(
            unsafe { tickreel_gold_splits_checkpoint(g, cp, live, &mut s) },
            OK
        );
        s
    }

    fn best(g: *mut TickreelGoldSplits, live: f64) -> f64 {
        let mut t = 0.0;
        // SAFETY: `t` is writable.
        assert_eq!(
            unsafe { tickreel_gold_splits_best_possible(g, live, &mut t) },
            OK
        );
        t
    }

    /// The hand-computed table of `tickreel::ghost::GoldSplits`' test, through C: route 1, 2;
    /// gold 20, 30, 30 ticks at 20 ticks a second.
    ///
    /// | live | event         | segment | delta | new gold | best possible |
    /// |------|---------------|---------|-------|----------|---------------|
    /// | 15   | -             |         |       |          | 80            |
    /// | 25   | -             |         |       |          | 85            |
    /// | 24   | checkpoint 2  | (off the route: no split)  | 85            |
    /// | 26   | checkpoint 1  | 0       | +6    | no       | 86            |
    /// | 51   | checkpoint 2  | 1       | -5    | yes      | 81            |
    /// | 90   | -             |         |       |          | 90            |
    /// | 83   | finish        | 2       | +2    | no       | 83            |
    /// | next attempt, 0 | -  |         |       |          | 75            |
    #[test]
    fn gold_splits_against_a_hand_computed_table() {
        let route = [1u32, 2];
        let gold = [20u32, 30, 30];
        let mut g = std::ptr::null_mut();
        // SAFETY: `route` and `gold` hold 2 and 3 values; `g` is writable.
        let res =
            unsafe { tickreel_gold_splits_new(route.as_ptr(), 2, gold.as_ptr(), 3, 20.0, &mut g) };
        assert_eq!(res, OK);
        let mut sum = 0;
        // SAFETY: `sum` is writable.
        assert_eq!(unsafe { tickreel_gold_splits_sum_of_best(g, &mut sum) }, OK);
        assert_eq!(sum, 80);
        assert_eq!(best(g, 15.0), 80.0);
        assert_eq!(best(g, 25.0), 85.0);
        let off = checkpoint(g, 2, 24.0);
        assert!(!off.split);
        assert_eq!(
            off.best_possible_ticks, 84.0,
            "24 ticks into a 20-tick gold, then 60"
        );
        let s = checkpoint(g, 1, 26.0);
        assert!(s.split && !s.new_gold);
        assert_eq!(
            (s.segment, s.segment_ticks, s.gold_ticks, s.delta_ticks),
            (0, 26.0, 20.0, 6.0)
        );
        assert_eq!(
            (
                s.delta_seconds,
                s.best_possible_ticks,
                s.best_possible_seconds
            ),
            (0.3, 86.0, 4.3)
        );
        let s = checkpoint(g, 2, 51.0);
        assert!(s.split && s.new_gold);
        assert_eq!(
            (s.segment, s.delta_ticks, s.best_possible_ticks),
            (1, -5.0, 81.0)
        );
        let mut now = [0i64; 4];
        let mut n = 0;
        // SAFETY: `now` holds 4 values; `n` is writable.
        assert_eq!(
            unsafe { tickreel_gold_splits_gold(g, now.as_mut_ptr(), 4, &mut n) },
            OK
        );
        assert_eq!((n, now), (3, [20, 25, 30, 0]));
        assert_eq!(best(g, 60.0), 81.0);
        assert_eq!(best(g, 90.0), 90.0);
        let mut f = TickreelGoldSplit::default();
        // SAFETY: `f` is writable.
        assert_eq!(unsafe { tickreel_gold_splits_finish(g, 83.0, &mut f) }, OK);
        assert!(f.split && !f.new_gold);
        assert_eq!(
            (f.segment, f.delta_ticks, f.best_possible_ticks),
            (2, 2.0, 83.0)
        );
        assert_eq!(tickreel_gold_splits_reset(g), OK);
        assert_eq!(best(g, 0.0), 75.0);
        assert_eq!(tickreel_gold_splits_free(g), OK);

        // Checked: gold for another number of segments, NULL with a length, NaN.
        // SAFETY: 2 and 2 values.
        let res =
            unsafe { tickreel_gold_splits_new(route.as_ptr(), 2, gold.as_ptr(), 2, 20.0, &mut g) };
        assert_eq!((res, g.is_null()), (TickreelResult::InvalidArgument, true));
        // SAFETY: NULL is refused before use.
        let res = unsafe {
            tickreel_gold_splits_new(std::ptr::null(), 2, gold.as_ptr(), 3, 20.0, &mut g)
        };
        assert_eq!(res, TickreelResult::NullArgument);
        // SAFETY: a route of none and one gold.
        let res = unsafe {
            tickreel_gold_splits_new(std::ptr::null(), 0, gold.as_ptr(), 1, 20.0, &mut g)
        };
        assert_eq!(res, OK);
        let mut t = 0.0;
        // SAFETY: `t` is writable; NaN is refused.
        let res = unsafe { tickreel_gold_splits_best_possible(g, f64::NAN, &mut t) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        assert_eq!(tickreel_gold_splits_free(g), OK);
    }
}

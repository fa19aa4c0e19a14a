//! Tests of [`super`]: periods, regions and the best region, against brute force.

use super::*;

use prof_timeline::test_random::XorShift;

/// [`regions_of`] written one position at a time, as the rules read.
fn plain_regions(names: &[NameId], prefix: &PrefixSums, period: usize) -> Vec<Region> {
    let n = names.len();
    let mut regions = Vec::new();
    if n < period * MIN_REPEATS {
        return regions;
    }
    let tolerated = ((period as f64 * MISMATCH_TOLERANCE) as usize).max(1);
    let mut consider = |first: usize, last: usize, matched: usize| {
        let repeats = (last + 1 - first + period) / period;
        if repeats >= MIN_REPEATS && matched * 100 >= MIN_MATCH_PCT * (last + 1 - first) {
            let end = first + repeats * period;
            regions.push(Region { start: first, period, repeats, covered_ns: prefix.sum(first, end) });
        }
    };
    let mut open: Option<(usize, usize, usize)> = None;
    for i in 0..n - period {
        if names[i] == names[i + period] {
            open = Some(match open {
                Some((first, _, matched)) => (first, i, matched + 1),
                None => (i, i, 1),
            });
        } else if let Some((first, last, matched)) = open {
            if i - last > tolerated {
                consider(first, last, matched);
                open = None;
            }
        }
    }
    if let Some((first, last, matched)) = open {
        consider(first, last, matched);
    }
    regions
}

/// Sequences of a repeating block with noise (runs of matching, mismatching and mixed
/// positions, so all three of the chunked comparison's ways are taken), every period from
/// 1 to 40: the chunked regions equal the plain ones.
#[test]
fn chunked_regions_equal_the_regions_found_one_position_at_a_time() {
    let mut rng = XorShift::new(0x0bad_5eed_1234_5678);
    for round in 0..40 {
        let block = 1 + rng.below(30) as usize;
        let noise = [0, 2, 20, 200][round % 4];
        let names: Vec<NameId> = (0..(200 + rng.below(800) as usize))
            .map(|i| {
                let name = if rng.below(1000) < noise { 1000 + rng.below(5) } else { (i % block) as u64 };
                NameId(name as u32)
            })
            .collect();
        let prefix = PrefixSums::of(names.iter().map(|_| rng.below(100)));
        for period in 1..=40 {
            assert_eq!(
                regions_of(&names, &prefix, period),
                plain_regions(&names, &prefix, period),
                "round {round} period {period}"
            );
        }
    }
}

/// Blocks of 30 ops, a common name every third op and the others distinct: at distance 27
/// the common name meets itself at a third of the positions, one match every three (within
/// the two mismatches a period of 27 tolerates), the other names never. Those chance
/// matches make no region; the blocks of 30 are found.
#[test]
fn chance_matches_of_a_common_name_make_no_region() {
    let names: Vec<NameId> = (0..30 * 20).map(|i| NameId(if i % 3 == 0 { 0 } else { 1 + i % 30 })).collect();
    let prefix = PrefixSums::of(names.iter().map(|_| 10));
    assert!(regions_of(&names, &prefix, 27).is_empty());
    assert_eq!(plain_regions(&names, &prefix, 27), Vec::new());
    let best = best_region(&names, &prefix).expect("the blocks repeat");
    assert_eq!((best.period, best.start, best.repeats), (30, 0, 20));
}

/// Periods scanned together a tile at a time (a sequence of several tiles, whose regions
/// open and close across tile bounds) give each period's regions found alone.
#[test]
fn periods_scanned_together_find_each_periods_own_regions() {
    let mut rng = XorShift::new(0x7117_7117_0000_0003);
    // Stretches of steady blocks of 7 and of 24 ops and of noise, of random lengths.
    let mut names = Vec::new();
    while names.len() < 3 * TILE + 123 {
        let (block, len) = ([7, 24, 0][rng.below(3) as usize], 1 + rng.below(3000) as usize);
        names.extend((0..len).map(|i| {
            let noisy = block == 0 || rng.below(100) == 0;
            NameId(if noisy { 1000 + rng.below(4) as u32 } else { (i % block) as u32 })
        }));
    }
    let prefix = PrefixSums::of(names.iter().map(|_| rng.below(100)));
    let periods = [2, 7, 14, 24, 25, 48, 700];
    let together = regions_of_all(&names, &prefix, &periods, false);
    let best = regions_of_all(&names, &prefix, &periods, true);
    assert!(together[1].len() > 3 && together[3].len() > 3, "the test has regions to find");
    for ((regions, best), &period) in together.iter().zip(&best).zip(&periods) {
        let plain = plain_regions(&names, &prefix, period);
        assert_eq!(*regions, plain, "period {period}");
        // The first of the regions that cover the most.
        let most = plain.iter().map(|r| r.covered_ns).max();
        assert_eq!(best.first(), plain.iter().find(|r| Some(r.covered_ns) == most), "period {period}");
        assert!(best.len() <= 1);
    }
}

/// Over [`PARALLEL_MIN_OPS`] ops the periods are tried on all cores: the same region as
/// trying them one after the other.
#[test]
fn periods_tried_on_all_cores_pick_the_region_tried_in_turn() {
    let mut rng = XorShift::new(0x5151_5151_aaaa_0001);
    // Steps of 97 ops, each step 8 layers of 12 plus a head; some ops differ.
    let names: Vec<NameId> = (0..PARALLEL_MIN_OPS + 5_000)
        .map(|i| {
            let at = i % 97;
            let name = if at == 96 { 500 } else { at % 12 };
            NameId(if rng.below(50) == 0 { 600 + rng.below(3) as u32 } else { name as u32 })
        })
        .collect();
    let prefix = PrefixSums::of(names.iter().map(|n| 10 + u64::from(n.0 % 7)));
    let serial = best_region_below(&names, &prefix, usize::MAX, false);
    assert!(serial.is_some());
    assert_eq!(best_region_below(&names, &prefix, usize::MAX, true), serial);
}

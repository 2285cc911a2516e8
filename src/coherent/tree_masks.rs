//! Which options of a feature each test of a tree ensemble sends left: the
//! tree search's per-applicant masks ([`super::tree_search::TreeSearch`]
//! keeps one bit set per test class over the feature's options, sorted by
//! cost).
//!
//! # A threshold test's left side is a run of the options ordered by value
//! The menus change with every applicant, so the masks are built once per
//! applicant for every test class of the model (485 on HELOC's 100-tree
//! XGBoost model, a few dozen options each). Asking each option whether the
//! test sends it left costs `options × classes` evaluations of the library's
//! rule. But a threshold rule — XGBoost's `(x as f32) < t`, LightGBM's
//! `x ≤ t`, ONNX's `≤ < ≥ >` — is monotone in the value: ordered by what the
//! trees see of them, the options a test sends left are a prefix of the
//! feature's options (or a suffix, for `≥` and `>`), apart from the missing
//! ones. So per feature the options are ordered by value once, with the
//! masks of every prefix; a test's mask is then one binary search of its own
//! rule (so float32 rounding and `≤` against `<` are decided as the library
//! decides them) and a copy, and only the missing options and the tests that
//! are not monotone (LightGBM's zero-as-missing band, ONNX's `=` and `≠`,
//! categorical levels) ask every option. Tested against asking every option
//! on every kind of test (`tree_masks::tests`).

use crate::model::trees::{Node, OnnxMode, Test};

/// Per feature, its options ordered by value with the masks of every prefix
/// of that order (see the module docs).
#[derive(Debug, Default)]
pub(super) struct LeftMasks {
    /// Per feature `f`, its options (indices within the feature) whose value
    /// is not NaN, in increasing order of value (`f64::total_cmp`):
    /// `order[start[f]..start[f + 1]]`, their values in `values` beside.
    order: Vec<u32>,
    values: Vec<f64>,
    start: Vec<usize>,
    /// Per feature, the masks of the first `j` options of its order for
    /// `j = 0..=n`, each `words` long, from `prefix_start[f]`.
    prefix: Vec<u64>,
    prefix_start: Vec<usize>,
    /// Per feature, its options whose value is NaN: `nan[nan_start[f]..]`.
    nan: Vec<u32>,
    nan_start: Vec<usize>,
    /// The word layout of the options (as the search's `word_start`).
    word_start: Vec<usize>,
}

/// Which side of a monotone test goes left: the low values or the high ones
/// (`None`: the test is not monotone in the value).
fn left_side(node: &Node) -> Option<bool> {
    match node.test {
        Test::BelowF32 | Test::AtMost | Test::AtMostNanMissing => Some(true),
        Test::OnnxF32(m) | Test::OnnxF64(m) => match m {
            OnnxMode::Leq | OnnxMode::Lt => Some(true),
            OnnxMode::Gte | OnnxMode::Gt => Some(false),
            OnnxMode::Eq | OnnxMode::Neq => None,
        },
        Test::AtMostZeroMissing | Test::Levels(_) | Test::Leaf => None,
    }
}

impl LeftMasks {
    /// Orders each feature's options by value: feature `f`'s options are
    /// `input[opt_start[f]..opt_start[f + 1]]` (what the trees see of each),
    /// their bits laid out in words `word_start[f]..word_start[f + 1]`.
    pub(super) fn build(&mut self, input: &[f64], opt_start: &[usize], word_start: &[usize]) {
        let n = opt_start.len() - 1;
        self.order.clear();
        self.values.clear();
        self.start.clear();
        self.prefix.clear();
        self.prefix_start.clear();
        self.nan.clear();
        self.nan_start.clear();
        self.word_start.clear();
        self.word_start.extend_from_slice(word_start);
        self.start.push(0);
        self.nan_start.push(0);
        for f in 0..n {
            let (o0, o1) = (opt_start[f], opt_start[f + 1]);
            let at = self.order.len();
            for o in 0..o1 - o0 {
                if input[o0 + o].is_nan() {
                    self.nan.push(o as u32);
                } else {
                    self.order.push(o as u32);
                }
            }
            self.order[at..].sort_unstable_by(|&a, &b| {
                input[o0 + a as usize]
                    .total_cmp(&input[o0 + b as usize])
                    .then(a.cmp(&b))
            });
            self.values
                .extend(self.order[at..].iter().map(|&o| input[o0 + o as usize]));
            self.start.push(self.order.len());
            self.nan_start.push(self.nan.len());
            let words = word_start[f + 1] - word_start[f];
            self.prefix_start.push(self.prefix.len());
            let p = self.prefix.len();
            self.prefix.resize(p + words, 0);
            for j in at..self.order.len() {
                let from = self.prefix.len() - words;
                self.prefix.extend_from_within(from..from + words);
                let o = self.order[j] as usize;
                let last = self.prefix.len() - words;
                self.prefix[last + o / 64] |= 1 << (o % 64);
            }
        }
    }

    /// Sets in `out` (feature `f`'s words, zeroed by the caller) the options
    /// of `f` that inner node `node` (testing `f`) sends left, `goes_left`
    /// being the library's rule for it (`TreeEnsemble::goes_left`); `input`
    /// and `opt_start` as given to [`LeftMasks::build`].
    pub(super) fn left_of(
        &self,
        node: &Node,
        goes_left: impl Fn(f64) -> bool,
        f: usize,
        input: &[f64],
        opt_start: &[usize],
        out: &mut [u64],
    ) {
        let words = self.word_start[f + 1] - self.word_start[f];
        debug_assert_eq!(out.len(), words);
        let Some(low_left) = left_side(node) else {
            for o in 0..opt_start[f + 1] - opt_start[f] {
                if goes_left(input[opt_start[f] + o]) {
                    out[o / 64] |= 1 << (o % 64);
                }
            }
            return;
        };
        let values = &self.values[self.start[f]..self.start[f + 1]];
        let prefix = |j: usize| {
            let at = self.prefix_start[f] + j * words;
            &self.prefix[at..at + words]
        };
        if low_left {
            let j = values.partition_point(|&v| goes_left(v));
            out.copy_from_slice(prefix(j));
        } else {
            let j = values.partition_point(|&v| !goes_left(v));
            let (all, low) = (prefix(values.len()), prefix(j));
            for (w, (a, l)) in out.iter_mut().zip(all.iter().zip(low)) {
                *w = a & !l;
            }
        }
        for &o in &self.nan[self.nan_start[f]..self.nan_start[f + 1]] {
            let o = o as usize;
            if goes_left(input[opt_start[f] + o]) {
                out[o / 64] |= 1 << (o % 64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trees::LIGHTGBM_ZERO;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Values where the rules are close calls: duplicates, ±0, LightGBM's
    /// zero band, neighbours of a threshold in float32 and in double, NaN,
    /// infinities.
    fn value(rng: &mut Xoshiro256PlusPlus, t: f64) -> f64 {
        match rng.random_range(0..12) {
            0 => f64::NAN,
            1 => 0.0,
            2 => -0.0,
            3 => LIGHTGBM_ZERO * rng.random_range(-2.0..2.0),
            4 => t,
            5 => f64::from_bits(t.to_bits() + 1),
            6 => f64::from_bits(t.to_bits() - 1),
            7 => f64::from(f32::from_bits((t as f32).to_bits() + 1)),
            8 => f64::from(f32::from_bits((t as f32).to_bits() - 1)),
            9 => {
                if rng.random_bool(0.5) {
                    f64::INFINITY
                } else {
                    f64::NEG_INFINITY
                }
            }
            _ => t + rng.random_range(-3.0..3.0f64).round() * 0.5,
        }
    }

    /// On random menus (one to three words of options per feature) and every
    /// kind of test, each test's mask equals asking every option.
    #[test]
    fn left_masks_equal_asking_every_option() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(43);
        let modes = OnnxMode::ALL;
        let mut masks = LeftMasks::default();
        let mut checked = [0usize; 2];
        for _ in 0..300 {
            let n = rng.random_range(1..5);
            let t = rng.random_range(-2.0..2.0f64).round() * 0.5 + 0.1;
            let mut opt_start = vec![0];
            let mut word_start = vec![0];
            let mut input = Vec::new();
            for _ in 0..n {
                let k: usize = rng.random_range(1..150);
                input.extend((0..k).map(|_| value(&mut rng, t)));
                opt_start.push(input.len());
                word_start.push(word_start.last().unwrap() + k.div_ceil(64));
            }
            masks.build(&input, &opt_start, &word_start);
            for f in 0..n {
                let tests = [
                    Test::BelowF32,
                    Test::AtMost,
                    Test::AtMostZeroMissing,
                    Test::AtMostNanMissing,
                    Test::OnnxF32(modes[rng.random_range(0..6)]),
                    Test::OnnxF64(modes[rng.random_range(0..6)]),
                ];
                for test in tests {
                    for threshold in [t, (t as f32) as f64, 0.0, -LIGHTGBM_ZERO] {
                        let node = Node {
                            test,
                            feature: f as u32,
                            threshold,
                            default_left: rng.random_bool(0.5),
                            left: 1,
                            right: 2,
                            value: 0.0,
                        };
                        let words = word_start[f + 1] - word_start[f];
                        let mut got = vec![0u64; words];
                        masks.left_of(
                            &node,
                            |v| node.numeric_left(v),
                            f,
                            &input,
                            &opt_start,
                            &mut got,
                        );
                        let mut want = vec![0u64; words];
                        for o in 0..opt_start[f + 1] - opt_start[f] {
                            if node.numeric_left(input[opt_start[f] + o]) {
                                want[o / 64] |= 1 << (o % 64);
                            }
                        }
                        assert_eq!(got, want, "{test:?} at {threshold} on feature {f}");
                        checked[usize::from(left_side(&node).is_some())] += 1;
                    }
                }
            }
        }
        // Both ways taken many times: by binary search and option by option.
        assert!(checked[0] > 1000 && checked[1] > 3000, "{checked:?}");
    }
}

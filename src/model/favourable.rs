//! Which of a binary model's two classes is the favourable outcome — the one
//! place cfx decides it.
//!
//! cfx's models score the log-odds of the *favourable* outcome (the applicant
//! is accepted above the threshold). A library's binary classifier scores the
//! log-odds of its class 1, and a credit model's class 1 is, more often than
//! not, the **default**: imported as it stands, such a model would accept the
//! riskiest applicants and advise declined ones towards default. The files
//! (XGBoost JSON, LightGBM text) do not say what class 1 means, so the caller
//! declares it at import ([`FavourableDeclaration`]); a live Python object's
//! `classes_` maps a declared label to its class index.
//!
//! A model whose favourable class is 0 is turned round exactly: its margin is
//! negated (every leaf and the base score — a sign flip, exact in float32 and
//! float64, so cfx's score is bit for bit minus the library's margin) and the
//! bank's cutoff `c` on the library's probability of class 1 (the default)
//! becomes the threshold `1 − c` on the favourable probability: accepted iff
//! the favourable probability is above `1 − c`, i.e. the library's probability
//! of default below `c` (strictly, as every cfx probability model decides; the
//! two agree up to the rounding of `1 − c`).
//!
//! Where labelled applicants are at hand, [`check_ranking`] proves the
//! declaration against the data: the favourable applicants must rank above the
//! others (area under the ROC curve above 0.5, the Mann–Whitney statistic),
//! else the model is refused with what to do.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// What a model's probability output is the probability of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreIs {
    /// The favourable outcome (repayment, "good"): accepted above the cutoff.
    ProbabilityOfFavourable,
    /// The unfavourable outcome (default, "bad"): accepted below the cutoff.
    ProbabilityOfDefault,
}

/// Which class of a binary model is favourable, as decided at import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Favourable {
    /// The favourable class: 1 (the model's probability is that of the
    /// favourable outcome) or 0 (it is the probability of default).
    pub class: u8,
    /// Whether the caller declared it (false: class 1 assumed, which the
    /// import report says loudly).
    pub declared: bool,
}

/// The import options that declare the favourable class: `favourable_class`
/// (0 or 1) or `score_is` (`"probability_of_default"` = class 0 favourable,
/// `"probability_of_favourable"` = class 1). Both may be given if they agree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FavourableDeclaration {
    pub favourable_class: Option<i64>,
    pub score_is: Option<ScoreIs>,
}

impl FavourableDeclaration {
    /// The favourable class declared (or class 1 assumed, undeclared).
    pub fn resolve(&self) -> Result<Favourable> {
        let by_class = match self.favourable_class {
            None => None,
            Some(c @ (0 | 1)) => Some(c as u8),
            Some(c) => {
                return Err(Error::InvalidArgument(format!(
                    "favourable_class {c}: a binary model's classes are 0 and 1"
                )));
            }
        };
        let by_score = self.score_is.map(|s| match s {
            ScoreIs::ProbabilityOfFavourable => 1u8,
            ScoreIs::ProbabilityOfDefault => 0u8,
        });
        match (by_class, by_score) {
            (Some(a), Some(b)) if a != b => Err(Error::InvalidArgument(format!(
                "favourable_class {a} contradicts score_is {:?} (which means favourable class {b})",
                self.score_is.unwrap_or(ScoreIs::ProbabilityOfFavourable)
            ))),
            (Some(c), _) | (None, Some(c)) => Ok(Favourable {
                class: c,
                declared: true,
            }),
            (None, None) => Ok(Favourable {
                class: 1,
                declared: false,
            }),
        }
    }
}

impl Favourable {
    /// Whether cfx negates the library's margin (class 0 favourable).
    pub fn flips(&self) -> bool {
        self.class == 0
    }

    /// cfx's threshold on the favourable probability for the bank's cutoff
    /// `cutoff` on the library's probability (of class 1).
    pub fn threshold(&self, cutoff: f64) -> f64 {
        if self.flips() { 1.0 - cutoff } else { cutoff }
    }

    /// The import report's line saying what the library's probability is taken
    /// to mean and how applicants are accepted.
    pub fn report_line(&self, cutoff: f64) -> String {
        match (self.class, self.declared) {
            (1, true) => format!(
                "favourable class 1 (declared): the model's probability is the probability of \
                 the favourable outcome; accepted iff it is above {cutoff}"
            ),
            (_, true) => format!(
                "favourable class 0 (declared): the model's probability is the probability of \
                 DEFAULT (the unfavourable class 1); cfx's score is minus the library's margin \
                 (the log-odds of the favourable outcome) and an applicant is accepted iff the \
                 library's probability of default is below {cutoff} (cfx's favourable \
                 probability above {})",
                1.0 - cutoff
            ),
            _ => format!(
                "FAVOURABLE CLASS NOT DECLARED: class 1 is ASSUMED favourable (the model's \
                 probability taken as the probability of repayment, accepted iff above \
                 {cutoff}); a credit model of the probability of default would be explained \
                 backwards: declare \"favourable_class\": 0 or \"score_is\": \
                 \"probability_of_default\" (or \"favourable_class\": 1) in the import options"
            ),
        }
    }
}

/// The area under the ROC curve of `scores` for telling the favourable rows
/// (`favourable[i]`) from the others: the probability that a random favourable
/// row scores above a random other one, ties counting one half (Mann–Whitney
/// U / (n₁·n₀)). `None` when either group is empty or a score is not finite.
pub fn ranking_auc(scores: &[f64], favourable: &[bool]) -> Option<f64> {
    if scores.len() != favourable.len() {
        return None;
    }
    let fav: Vec<f64> = favourable.iter().map(|&f| f64::from(u8::from(f))).collect();
    let other: Vec<f64> = fav.iter().map(|f| 1.0 - f).collect();
    weighted_auc(scores, &fav, &other)
}

/// [`ranking_auc`] of groups: score `scores[i]` is held by `fav[i]` favourable
/// and `other[i]` other applicants (a scorecard table's bins with their
/// non-event and event counts). Sorted once; ties count one half.
pub fn weighted_auc(scores: &[f64], fav: &[f64], other: &[f64]) -> Option<f64> {
    if scores.len() != fav.len()
        || scores.len() != other.len()
        || scores.iter().any(|s| !s.is_finite())
        || fav
            .iter()
            .chain(other)
            .any(|w| !(w.is_finite() && *w >= 0.0))
    {
        return None;
    }
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    // Walking up the scores: each favourable group beats every other
    // applicant below it and ties half of those at its score.
    let (mut wins, mut below, mut i) = (0.0f64, 0.0f64, 0usize);
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && scores[idx[j + 1]] == scores[idx[i]] {
            j += 1;
        }
        let f: f64 = idx[i..=j].iter().map(|&k| fav[k]).sum();
        let o: f64 = idx[i..=j].iter().map(|&k| other[k]).sum();
        wins += f * (below + 0.5 * o);
        below += o;
        i = j + 1;
    }
    let n1: f64 = fav.iter().sum();
    let n0: f64 = other.iter().sum();
    if n1 == 0.0 || n0 == 0.0 {
        return None;
    }
    Some(wins / (n1 * n0))
}

/// Checks on labelled rows that the model ranks the favourable applicants
/// above the others (AUC > 0.5); returns the AUC. A model ranked the other
/// way round (AUC ≤ 0.5) — almost always a probability-of-default model read
/// as a probability of repayment, or the reverse — is refused, saying what to
/// declare. Rows of one label only, or unequal lengths, are refused too.
pub fn check_ranking(scores: &[f64], favourable: &[bool]) -> Result<f64> {
    if scores.len() != favourable.len() {
        return Err(Error::InvalidArgument(format!(
            "favourable-class check: {} scores for {} labels",
            scores.len(),
            favourable.len()
        )));
    }
    let auc = ranking_auc(scores, favourable).ok_or_else(|| {
        Error::InvalidArgument(
            "favourable-class check: the labelled rows need both outcomes (favourable and not) \
             and finite scores"
                .into(),
        )
    })?;
    if auc <= 0.5 {
        return Err(Error::InvalidArgument(format!(
            "the model ranks the favourable applicants BELOW the others on the labelled rows \
             (AUC {auc:.4} ≤ 0.5 for the favourable outcome): its probability is most likely the \
             probability of default read as that of repayment (or the reverse). Re-import it \
             declaring the other class: \"favourable_class\": 0 (\"score_is\": \
             \"probability_of_default\") if it predicts default, 1 if it predicts repayment; \
             and check that the dataset's labels mark the favourable outcome with 1"
        )));
    }
    Ok(auc)
}

/// [`check_ranking`] of a model on labelled encoded rows (labels 1 = the
/// favourable outcome, as cfx's datasets mark it; the scores are the model's
/// own, on the encoded rows). The rows must be under the model's schema. It
/// takes rows and labels rather than a `Dataset` because `model` sits below
/// `data` in the crate's layering (`tests/layering.rs`).
pub fn check_on_rows(model: &dyn super::Model, rows: &[Vec<f64>], labels: &[f64]) -> Result<f64> {
    crate::error::check_len("labels vs rows", rows.len(), labels.len())?;
    let mut scores = Vec::with_capacity(rows.len());
    for x in rows {
        crate::error::check_len(
            "dataset encoded row vs model input",
            model.input_dim(),
            x.len(),
        )?;
        scores.push(model.score(x));
    }
    let favourable: Vec<bool> = labels.iter().map(|&l| l == 1.0).collect();
    check_ranking(&scores, &favourable)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute-force AUC: every (favourable, other) pair, ties one half.
    fn brute(scores: &[f64], fav: &[bool]) -> f64 {
        let (mut wins, mut pairs) = (0.0, 0.0);
        for (i, &a) in scores.iter().enumerate() {
            for (j, &b) in scores.iter().enumerate() {
                if fav[i] && !fav[j] {
                    pairs += 1.0;
                    wins += if a > b {
                        1.0
                    } else if a == b {
                        0.5
                    } else {
                        0.0
                    };
                }
            }
        }
        wins / pairs
    }

    #[test]
    fn auc_equals_the_pairwise_count_with_ties() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as f64
        };
        for n in [2usize, 5, 17, 60] {
            let scores: Vec<f64> = (0..n).map(|_| (next() % 7.0).floor()).collect();
            let mut fav: Vec<bool> = (0..n).map(|_| next() % 2.0 == 0.0).collect();
            fav[0] = true;
            fav[1] = false;
            let got = ranking_auc(&scores, &fav).unwrap();
            assert!((got - brute(&scores, &fav)).abs() < 1e-12, "n={n}");
        }
        assert_eq!(ranking_auc(&[1.0, 2.0], &[true, true]), None);
        assert_eq!(ranking_auc(&[1.0, f64::NAN], &[true, false]), None);
    }

    #[test]
    fn a_model_ranked_backwards_is_refused_naming_the_option() {
        let scores = [0.1, 0.2, 0.8, 0.9];
        assert_eq!(
            check_ranking(&scores, &[false, false, true, true]).unwrap(),
            1.0
        );
        let e = check_ranking(&scores, &[true, true, false, false]).unwrap_err();
        assert!(e.to_string().contains("favourable_class"), "{e}");
        // A constant model tells nothing: refused too (AUC exactly 0.5).
        assert!(check_ranking(&[1.0; 4], &[true, false, true, false]).is_err());
    }

    #[test]
    fn declarations_resolve_and_contradictions_are_refused() {
        let d = |c, s| FavourableDeclaration {
            favourable_class: c,
            score_is: s,
        };
        assert_eq!(
            d(None, None).resolve().unwrap(),
            Favourable {
                class: 1,
                declared: false
            }
        );
        assert_eq!(
            d(None, Some(ScoreIs::ProbabilityOfDefault))
                .resolve()
                .unwrap()
                .class,
            0
        );
        assert_eq!(d(Some(0), None).resolve().unwrap().class, 0);
        assert!(
            d(Some(1), Some(ScoreIs::ProbabilityOfDefault))
                .resolve()
                .is_err()
        );
        assert!(d(Some(2), None).resolve().is_err());
        let f = d(Some(0), None).resolve().unwrap();
        assert_eq!(f.threshold(0.2), 0.8);
        assert!(
            d(None, None)
                .resolve()
                .unwrap()
                .report_line(0.5)
                .contains("NOT DECLARED")
        );
    }
}

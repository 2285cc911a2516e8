//! The bundled German points scorecard (optbinning 1.0.0 on German credit's
//! training part; `examples/data/german_scorecard.md`): the import options its
//! table does not carry, and its loader. Its file is found by
//! [`crate::data::bundled_german_scorecard`]; reading it as a model belongs
//! here, so that `data` knows files and schemas but no model.

use super::ScoreScaling;
use super::import::{ImportOptions, Imported, from_optbinning_path};
use crate::error::Result;
use crate::schema::Schema;
use std::path::Path;

/// What the bundled German scorecard's table does not say, as
/// `examples/data/german_scorecard.md` documents it: optbinning's
/// `pdo_odds` scaling with 20 points to double the odds and odds 50 : 1 of
/// good at 600 points, the cutoff at probability 0.5 of good (the score
/// at odds 1 : 1, 487.12…), the threshold of cfx's other models, and its
/// favourable class: 0, the non-events (good credit).
pub fn german_scorecard_options() -> ImportOptions {
    let scaling = ScoreScaling::from_pdo(20.0, 50.0, 600.0)
        .expect("20 points to double the odds, odds 50 at 600 points is a valid scaling");
    ImportOptions {
        cutoff: scaling.offset,
        scaling: Some(scaling),
        refuse_unlisted_levels: false,
        // optbinning's event (target 1) is bad credit: the non-events are
        // the favourable outcome (examples/data/german_scorecard.md).
        favourable: crate::model::favourable::FavourableDeclaration {
            favourable_class: Some(0),
            score_is: None,
        },
        unused_features: Vec::new(),
    }
}

/// The bundled German points scorecard (made with optbinning 1.0.0 on the
/// training part of `german_credit.csv`; `examples/data/german_scorecard.md`)
/// read from `path` against `schema` (the schema of [`crate::data::german_credit`]) with
/// [`german_scorecard_options`]. `path` is usually [`crate::data::bundled_german_scorecard`].
pub fn german_scorecard(schema: &Schema, path: &Path) -> Result<Imported> {
    from_optbinning_path(schema, path, &german_scorecard_options())
}

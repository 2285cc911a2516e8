//! Reasons of a linear (logistic) model: `φ_j = Σ_{c ∈ cols(j)} w_c·(x_c − x̄_c)`,
//! the exact Shapley value of a linear score against the reference mean (and
//! equally the interventional one against the reference rows: the score is
//! additive, so the average over the rows is the value at their mean).

use super::{Attribution, Method, Reference};
use crate::model::{LinearModel, Model};
use crate::schema::Schema;

pub(super) fn attribute(
    model: &LinearModel,
    schema: &Schema,
    x: &[f64],
    reference: &Reference,
) -> Attribution {
    let mean = reference.mean_encoded();
    let contributions = (0..schema.n_features())
        .map(|i| {
            let l = schema.layout(i);
            (l.start..l.start + l.width)
                .map(|c| model.weights[c] * (x[c] - mean[c]))
                .sum()
        })
        .collect();
    Attribution {
        method: Method::LinearExact,
        score: model.score(x),
        base_value: model.score(mean),
        contributions,
        codes: None,
        uses_reference: true,
    }
}

//! Warm starts of the tree search across the applicants of a book (issue 43),
//! for callers that explain many look-alike applicants ([`super::explain_warm`]).
//!
//! The applicants of a book resemble one another, and an earlier applicant's
//! optimal answer, carried over, is often an accepted answer for the next one,
//! or close to one. [`TreeWarmStarts`] keeps the answers of the last
//! applicants explained through it: per applicant its raw row and, per feature
//! its answer moved, what the trees saw of the new value. For a new applicant
//! the search ([`super::tree_search::TreeSearch::add_warm`]) maps the nearest
//! applicants' moves onto its own menus (each moved feature to the cheapest
//! option of its menu in the same cell of the ensemble's thresholds), scores
//! each as it is, and the primal heuristic (`coherent::tree_primal`) starts
//! from the cheapest accepted one (or the nearest).
//!
//! A warm start only hands the search an incumbent: an accepted answer, scored
//! as the library scores it, whose cost is an upper bound on the optimum. The
//! search still proves its answer optimal (every open node's bound reaches the
//! incumbent's cost), so the answer costs what a fresh search's costs. Which
//! of two answers of equal cost (within `PRUNE_REL`, 1e-11 relative) it
//! returns may differ from a fresh search, and such ties occur on HELOC (two
//! moves whose weighted steps sum to the same cost): that is why the
//! portfolio stream, whose lines are those of a fresh [`super::explain`] on
//! every layout, does not use it.

use crate::schema::Schema;

/// Answers kept at most: older ones are overwritten.
const CAPACITY: usize = 4096;

/// Nearest earlier applicants whose answers seed a search.
pub(super) const TRIED: usize = 3;

/// The answers of one worker's recent applicants (see the module docs).
#[derive(Debug, Default)]
pub struct TreeWarmStarts {
    /// Per feature, the weight of a unit of raw value in the distance
    /// between applicants (the schema's value weight).
    scale: Vec<f64>,
    /// The raw rows of the kept applicants, `scale.len()` values each.
    rows: Vec<f64>,
    /// Each kept answer's moves: (feature, what the trees see of its new
    /// value).
    moves: Vec<Vec<(u32, f64)>>,
    /// The slot the next answer overwrites once full.
    next: usize,
    /// Buffer of [`TreeWarmStarts::nearest`].
    ranked: Vec<(f64, usize)>,
}

impl TreeWarmStarts {
    /// No answers yet.
    pub fn new() -> TreeWarmStarts {
        TreeWarmStarts::default()
    }

    /// Forgets every answer (the buffers are kept).
    pub fn clear(&mut self) {
        self.rows.clear();
        for m in &mut self.moves {
            m.clear();
        }
        self.next = 0;
    }

    fn len(&self) -> usize {
        if self.scale.is_empty() {
            0
        } else {
            self.rows.len() / self.scale.len()
        }
    }

    /// The kept answers of the `TRIED` applicants nearest to `factual`
    /// (weighted L1 distance of the raw rows), nearest first.
    pub(super) fn nearest<'s>(
        &'s mut self,
        schema: &Schema,
        factual: &[f64],
    ) -> impl Iterator<Item = &'s [(u32, f64)]> + 's {
        self.fit(schema);
        let n = self.scale.len();
        self.ranked.clear();
        if factual.len() == n {
            for e in 0..self.len() {
                let row = &self.rows[e * n..(e + 1) * n];
                let d: f64 = row
                    .iter()
                    .zip(factual)
                    .zip(&self.scale)
                    .map(|((a, b), w)| w * (a - b).abs())
                    .sum();
                if d.is_finite() {
                    self.ranked.push((d, e));
                }
            }
        }
        let k = TRIED.min(self.ranked.len());
        if k > 0 && k < self.ranked.len() {
            self.ranked
                .select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        }
        self.ranked.truncate(k);
        self.ranked
            .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let moves = &self.moves;
        self.ranked.iter().map(move |&(_, e)| moves[e].as_slice())
    }

    /// Keeps the answer `moves` of the applicant `factual`.
    pub(super) fn record(&mut self, schema: &Schema, factual: &[f64], moves: &[(u32, f64)]) {
        self.fit(schema);
        let n = self.scale.len();
        if factual.len() != n || moves.is_empty() {
            return;
        }
        let e = if self.len() < CAPACITY {
            self.rows.extend_from_slice(factual);
            self.len() - 1
        } else {
            let e = self.next;
            self.next = (self.next + 1) % CAPACITY;
            self.rows[e * n..(e + 1) * n].copy_from_slice(factual);
            e
        };
        if self.moves.len() <= e {
            self.moves.resize_with(e + 1, Vec::new);
        }
        self.moves[e].clear();
        self.moves[e].extend_from_slice(moves);
    }

    /// Sets the distance's weights for `schema` (once, or again for another
    /// schema's width, forgetting the answers).
    fn fit(&mut self, schema: &Schema) {
        if self.scale.len() == schema.n_features() {
            return;
        }
        self.scale = (0..schema.n_features())
            .map(|f| {
                let w = schema.weights(f).value;
                if w.is_finite() && w > 0.0 { w } else { 1.0 }
            })
            .collect();
        self.clear();
    }
}

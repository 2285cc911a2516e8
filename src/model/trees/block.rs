//! Monte Carlo block scoring (the robust module's hot loop, see
//! [`Model::score_perturbed`]).
//!
//! The Monte Carlo estimators of Γ̃ and Θ̃ (CROCO, Guyomard et al. 2023, §4)
//! score blocks of noisy copies of one applicant that differ from it only on
//! the noisy columns. Through [`Model::score_in`] every node of every tree
//! decodes its feature from the encoded vector again (special-state
//! indicators, the slot's affine map, the grid snap). Here each feature is
//! decoded once per copy, and only the features that noise touches: the
//! others keep the applicant's value, decoded once per applicant in
//! [`Model::prepare_perturbed`]. The block is then walked tree by tree (one
//! tree's nodes stay in cache for the whole block), each copy's sum
//! accumulated in the library's order and precision, so a copy scores
//! exactly — to the bit — as [`Model::score_in`] scores it. Never allocates.

use super::{Source, TreeEnsemble};
use crate::model::{Model, PERTURBED_BLOCK};

impl TreeEnsemble {
    /// The schema feature whose encoded columns include column `c`.
    fn feature_of_column(&self, c: usize) -> usize {
        self.starts.partition_point(|&s| s <= c) - 1
    }

    /// Scratch of the block scorer: the perturbed encoded point, a noisy flag
    /// per feature, and what the trees see of every feature for every copy of
    /// a block (`inputs[f·PERTURBED_BLOCK + s]`).
    pub(super) fn block_scratch_len(&self) -> usize {
        let n_f = self.inputs.len();
        self.input_dim() + n_f + n_f * PERTURBED_BLOCK
    }

    /// Copies `x`, flags the features that the noisy columns `cols` touch, and
    /// fills every copy's row of trees' inputs with the applicant's own.
    pub(super) fn prepare_block(&self, x: &[f64], cols: &[usize], scratch: &mut [f64]) {
        let n_f = self.inputs.len();
        let (point, rest) = scratch.split_at_mut(x.len());
        let (noisy, inputs) = rest.split_at_mut(n_f);
        point.copy_from_slice(x);
        noisy.fill(0.0);
        for &c in cols {
            noisy[self.feature_of_column(c)] = 1.0;
        }
        for f in 0..n_f {
            let v = self.encoded_input(f, x);
            inputs[f * PERTURBED_BLOCK..(f + 1) * PERTURBED_BLOCK].fill(v);
        }
    }

    /// Scores `n` noisy copies of `x` (see [`Model::score_perturbed`]) after
    /// [`TreeEnsemble::prepare_block`] with the same `x` and `cols`.
    pub(super) fn score_block(
        &self,
        x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        scratch: &mut [f64],
    ) {
        let n_f = self.inputs.len();
        let (point, rest) = scratch.split_at_mut(x.len());
        let (noisy, inputs) = rest.split_at_mut(n_f);
        for s in 0..n {
            for (k, &c) in cols.iter().enumerate() {
                point[c] = x[c] + deltas[k * PERTURBED_BLOCK + s];
            }
            for (f, _) in noisy.iter().enumerate().filter(|(_, v)| **v != 0.0) {
                inputs[f * PERTURBED_BLOCK + s] = self.encoded_input(f, point);
            }
        }
        let inputs = &*inputs;
        let out = &mut out[..n];
        // Each copy's sum runs base score, tree 0, tree 1, … as in
        // `sum_leaves`: XGBoost in float32 (an f32 held in an f64 converts
        // back exactly), LightGBM in f64.
        match self.source {
            Source::Xgboost => {
                out.fill(self.base_score as f32 as f64);
                for &r in &self.roots {
                    for (s, o) in out.iter_mut().enumerate() {
                        let leaf = self.descend(r as usize, |f| inputs[f * PERTURBED_BLOCK + s]);
                        *o = ((*o as f32) + (leaf.value as f32)) as f64;
                    }
                }
            }
            Source::Lightgbm | Source::Catboost | Source::Ebm | Source::Sklearn => {
                out.fill(self.base_score);
                for &r in &self.roots {
                    for (s, o) in out.iter_mut().enumerate() {
                        *o += self
                            .descend(r as usize, |f| inputs[f * PERTURBED_BLOCK + s])
                            .value;
                    }
                }
            }
            Source::OnnxF32 | Source::OnnxF64 | Source::PmmlF32 | Source::PmmlF64 => {
                // onnxruntime and jpmml-evaluator: from zero, tree by tree,
                // then the base value.
                let f32_sum = self.source.sums_in_f32();
                out.fill(0.0);
                for &r in &self.roots {
                    for (s, o) in out.iter_mut().enumerate() {
                        let v = self
                            .descend(r as usize, |f| inputs[f * PERTURBED_BLOCK + s])
                            .value;
                        *o = if f32_sum {
                            ((*o as f32) + (v as f32)) as f64
                        } else {
                            *o + v
                        };
                    }
                }
                for o in out.iter_mut() {
                    *o = if f32_sum {
                        ((*o as f32) + (self.base_score as f32)) as f64
                    } else {
                        *o + self.base_score
                    };
                }
            }
        }
    }
}

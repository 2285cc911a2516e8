//! `cfx_model`: a scoring model over a schema's encoded space (logistic
//! regression or MLP). Immutable and `Arc`-backed: share it across threads.
//!
//! Scores are log-odds of the favourable outcome, probabilities their
//! logistic link; an applicant is accepted when the probability is strictly
//! above the model's threshold.

use super::data::cfx_dataset;
use super::handle::{
    ArcHandle, arc_free, arc_into_raw, arc_ref, count_in, elements, finite, finite_in,
    optional_out, out_param, slice_in, str_in, write_slice, write_str,
};
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::model::{AnyModel, LinearModel, LogisticFit, MlpModel, MlpTraining, Model};
use std::ffi::c_char;
use std::sync::Arc;

/// An immutable model. Thread-safe: may be used from many threads at once and
/// freed from any thread, exactly once, with `cfx_model_free`.
pub struct cfx_model {
    _private: [u8; 0],
}

unsafe impl ArcHandle for cfx_model {
    type Rust = AnyModel;
}

/// Model kinds reported by `cfx_model_get_kind`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_model_kind {
    /// Logistic regression: score = w·x + b.
    Linear = 0,
    /// Multi-layer perceptron with ReLU hidden layers.
    Mlp = 1,
    /// Points scorecard: score = points total, accepted when points ≥ cutoff.
    Scorecard = 2,
    /// A gradient-boosted tree ensemble (XGBoost, LightGBM).
    Trees = 3,
}

/// A logistic-regression model `score = w·x + b` over the encoded space,
/// accepted when `sigmoid(score) > threshold` (0 < threshold < 1). All
/// values must be finite. On success `*out_model` owns a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_linear_new(
    weights: *const f64,
    n_weights: usize,
    bias: f64,
    threshold: f64,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let w = finite_in(weights, n_weights, "weights")?;
        let m = LinearModel::new(w.to_vec(), finite(bias, "bias")?, finite(threshold, "threshold")?)?;
        out.write(arc_into_raw(Arc::new(AnyModel::Linear(m))));
        Ok(())
    }
}

/// Reads a model from JSON (as written by `cfx_model_to_json`) and checks its
/// input dimension against `schema`'s encoded dimension (`DIMENSION_MISMATCH`
/// when they differ). Errors: `FORMAT_ERROR` (also for an unknown or
/// misspelled key, named in the message), `INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_from_json(
    schema: *const cfx_schema,
    json: *const c_char,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let s = arc_ref(schema, "schema")?;
        let m = AnyModel::from_json(str_in(json, "json")?, s)?;
        out.write(arc_into_raw(Arc::new(m)));
        Ok(())
    }
}

/// Writes the model as JSON (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_to_json(
    model: *const cfx_model,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let m = arc_ref(model, "model")?;
        write_str(&m.to_json(), buf, cap, out_len, "buf")
    }
}

/// Fits L2-regularised logistic regression on the encoded rows of `dataset`
/// (scikit-learn's `LogisticRegression(C=c)` objective), threshold 0.5.
/// `c` must be positive and finite. Thread-safe with respect to `dataset`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_fit_linear(
    dataset: *const cfx_dataset,
    c: f64,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let d = arc_ref(dataset, "dataset")?;
        let opts = LogisticFit { c, ..Default::default() };
        let m = LinearModel::fit(&d.encoded(), &d.labels, opts)?;
        out.write(arc_into_raw(Arc::new(AnyModel::Linear(m))));
        Ok(())
    }
}

/// Trains an MLP on the encoded rows of `dataset` (binary cross-entropy,
/// Adam, mini-batches), threshold 0.5. `hidden`: the hidden-layer widths
/// (`n_hidden` values, each positive); the same `seed` gives the same bits.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_train_mlp(
    dataset: *const cfx_dataset,
    hidden: *const usize,
    n_hidden: usize,
    epochs: usize,
    batch_size: usize,
    learning_rate: f64,
    l2: f64,
    seed: u64,
    out_model: *mut *const cfx_model,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_model, "out_model")?;
        let d = arc_ref(dataset, "dataset")?;
        let hidden = slice_in(hidden, n_hidden, "hidden")?;
        if n_hidden > 0 {
            count_in(n_hidden, "n_hidden")?;
        }
        for &h in hidden {
            count_in(h, "hidden width")?;
        }
        // the weight matrices: input × first width, each width × the next
        let widths: Vec<usize> = std::iter::once(d.schema.encoded_dim())
            .chain(hidden.iter().copied())
            .collect();
        for pair in widths.windows(2) {
            elements(pair, "an MLP weight matrix")?;
        }
        let opts = MlpTraining {
            hidden: hidden.to_vec(),
            epochs: count_in(epochs, "epochs")?,
            batch_size: count_in(batch_size, "batch_size")?,
            learning_rate: finite(learning_rate, "learning_rate")?,
            l2: finite(l2, "l2")?,
            seed,
        };
        let m = MlpModel::train(&d.encoded(), &d.labels, &opts)?;
        out.write(arc_into_raw(Arc::new(AnyModel::Mlp(m))));
        Ok(())
    }
}

/// The model kind (`CFX_MODEL_KIND_LINEAR`, `CFX_MODEL_KIND_MLP`,
/// `CFX_MODEL_KIND_SCORECARD` or `CFX_MODEL_KIND_TREES`) as `int32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_get_kind(
    model: *const cfx_model,
    out_kind: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_kind, "out_kind")?;
        let k = match arc_ref(model, "model")? {
            AnyModel::Linear(_) => cfx_model_kind::Linear,
            AnyModel::Mlp(_) => cfx_model_kind::Mlp,
            AnyModel::Scorecard(_) => cfx_model_kind::Scorecard,
            AnyModel::Trees(_) => cfx_model_kind::Trees,
        };
        out.write(k as i32);
        Ok(())
    }
}

/// The input dimension (must equal the schema's encoded dimension). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_input_dim(
    model: *const cfx_model,
    out_dim: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_dim, "out_dim")?;
        out.write(arc_ref(model, "model")?.input_dim());
        Ok(())
    }
}

/// The decision threshold on the probability. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_threshold(
    model: *const cfx_model,
    out_threshold: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_threshold, "out_threshold")?;
        out.write(arc_ref(model, "model")?.threshold());
        Ok(())
    }
}

/// Checks on the labelled applicants of `dataset` (labels 1 = the favourable
/// outcome) that the model ranks the favourable ones above the others, and
/// writes the area under the ROC curve of its score (> 0.5) to `*out_auc`.
/// A model ranked the other way round (AUC ≤ 0.5) — typically a model of the
/// probability of default imported as a model of repayment — is
/// `CFX_STATUS_INVALID_ARGUMENT`, with a message saying what to declare at
/// import (`"favourable_class"`), and nothing written; so is a dataset of one
/// label only or of another encoded width. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_check_favourable(
    model: *const cfx_model,
    dataset: *const cfx_dataset,
    out_auc: *mut f64,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_auc, "out_auc")?;
        let m = arc_ref(model, "model")?;
        let d = arc_ref(dataset, "dataset")?;
        out.write(crate::model::favourable::check_on_rows(m, &d.encoded(), &d.labels)?);
        Ok(())
    }
}

/// The probability and the decision at a score, as the model itself decides:
/// `probability > threshold` for the probability models (the logistic of a
/// margin, or a forest's score itself), `points
/// ≥ cutoff` for a scorecard, whose probability is NaN without a scaling.
fn decide(m: &AnyModel, score: f64) -> (f64, bool) {
    match m {
        AnyModel::Scorecard(_) => (m.probability_of_score(score), m.accepts_score(score)),
        _ => {
            let p = m.probability_of_score(score);
            (p, p > m.threshold())
        }
    }
}

/// Scores one encoded row through [`AnyModel::checked_score`] (a NaN score
/// is `INVALID_ARGUMENT`, nothing written) and writes the score, probability
/// and decision to the out-parameters that are not NULL.
fn predict_into(
    m: &AnyModel,
    x: &[f64],
    out_score: *mut f64,
    out_probability: *mut f64,
    out_accepted: *mut i32,
) -> FfiResult<()> {
    let score = m.checked_score(x)?;
    let (p, accepted) = decide(m, score);
    if let Some(o) = optional_out(out_score) {
        o.write(score)
    }
    if let Some(o) = optional_out(out_probability) {
        o.write(p)
    }
    if let Some(o) = optional_out(out_accepted) {
        o.write(accepted as i32)
    }
    Ok(())
}

fn encoded_input<'a>(m: &AnyModel, x: *const f64, x_len: usize) -> FfiResult<&'a [f64]> {
    let x = finite_in(x, x_len, "x")?;
    crate::error::check_len("x (model input dimension)", m.input_dim(), x.len())?;
    Ok(x)
}

/// Score, probability and decision of one encoded row (`x_len == input_dim`,
/// finite values). Any of the three out-parameters may be NULL when not
/// wanted; the others are written on success. `*out_accepted` is 1 when the
/// probability is strictly above the threshold, else 0. For a scorecard the
/// score is the points total, `*out_accepted` is 1 when points ≥ cutoff, and
/// the probability is NaN when the scorecard has no scaling.
/// `INVALID_ARGUMENT` when the score is not a number (finite weights near
/// 1e308 whose terms overflow to opposite infinities); nothing is written
/// then. A score that overflows one way only is ±infinity, with probability
/// 1 or 0 and its decision. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_predict(
    model: *const cfx_model,
    x: *const f64,
    x_len: usize,
    out_score: *mut f64,
    out_probability: *mut f64,
    out_accepted: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let m = arc_ref(model, "model")?;
        let x = encoded_input(m, x, x_len)?;
        predict_into(m, x, out_score, out_probability, out_accepted)
    }
}

/// Like `cfx_model_predict` for a raw applicant row (`raw_len ==
/// n_features` of `schema`), encoded through `schema` first.
/// `DIMENSION_MISMATCH` when the schema and the model disagree. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_predict_raw(
    model: *const cfx_model,
    schema: *const cfx_schema,
    raw: *const f64,
    raw_len: usize,
    out_score: *mut f64,
    out_probability: *mut f64,
    out_accepted: *mut i32,
) -> cfx_status {
    ffi_boundary! {
        let m = arc_ref(model, "model")?;
        let s = arc_ref(schema, "schema")?;
        crate::model::check_model_for_schema(m, s, "the schema")?;
        let x = s.encode(finite_in(raw, raw_len, "raw")?)?;
        predict_into(m, &x, out_score, out_probability, out_accepted)
    }
}

/// Probabilities of `n_rows` encoded rows (`x`: `n_rows × input_dim` values,
/// row-major, finite) into `out` (`n_rows` values, array buffer protocol), as
/// `cfx_model_predict` gives them row by row (NaN for a scorecard without a
/// scaling). `INVALID_ARGUMENT` naming the first row whose score is not a
/// number (finite weights near 1e308 whose terms overflow to opposite
/// infinities); then nothing is written, `*out_len` included. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_probability_batch(
    model: *const cfx_model,
    x: *const f64,
    n_rows: usize,
    out: *mut f64,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let m = arc_ref(model, "model")?;
        let d = m.input_dim();
        let len = n_rows.checked_mul(d).ok_or_else(|| FfiError::invalid("n_rows × input_dim overflows"))?;
        let x = finite_in(x, len, "x")?;
        let mut scratch = vec![0.0; m.scratch_len()];
        let p = x
            .chunks(d.max(1))
            .take(n_rows)
            .enumerate()
            .map(|(i, r)| match m.checked_score_in(r, &mut scratch) {
                Ok(score) => Ok(decide(m, score).0),
                Err(e) => Err(FfiError::invalid(format!("row {i} of x: {e}"))),
            })
            .collect::<FfiResult<Vec<f64>>>()?;
        write_slice(&p, out, cap, out_len, "out")
    }
}

/// The fingerprint of the model's canonical JSON (`"fnv1a64:<hex>"`), as
/// written in result exports (string buffer protocol). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_fingerprint(
    model: *const cfx_model,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> cfx_status {
    ffi_boundary! {
        let m = arc_ref(model, "model")?;
        write_str(&super::export::model_fingerprint(m), buf, cap, out_len, "buf")
    }
}

/// Releases a model handle. NULL is a no-op. May be called from any thread,
/// exactly once per handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_model_free(model: *const cfx_model) {
    ffi_boundary! { arc_free(model) }
}

//! A multi-layer perceptron classifier: ReLU hidden layers and a single output
//! unit whose pre-activation is the score (log-odds); the probability is its
//! sigmoid. CROCO's experiments use one hidden layer of 50 ReLU units.

use super::{Model, PERTURBED_BLOCK};
use crate::error::{Error, Result, check_len};
use crate::nn::{Activation, Adam, Network};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

fn half() -> f64 {
    0.5
}

/// An MLP over the encoded space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlpModel {
    pub network: Network,
    #[serde(default = "half")]
    pub threshold: f64,
    /// What the import from a model file (ONNX) assumed, one line per fact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub import_report: Vec<String>,
}

/// How to train an [`MlpModel`]: binary cross-entropy, Adam, mini-batches.
#[derive(Debug, Clone, PartialEq)]
pub struct MlpTraining {
    pub hidden: Vec<usize>,
    pub epochs: usize,
    pub batch_size: usize,
    pub learning_rate: f64,
    /// L2 penalty on the weights (added to the mean loss).
    pub l2: f64,
    pub seed: u64,
}

impl Default for MlpTraining {
    fn default() -> Self {
        MlpTraining {
            hidden: vec![50],
            epochs: 30,
            batch_size: 64,
            learning_rate: 2e-3,
            l2: 1e-4,
            seed: 0,
        }
    }
}

impl MlpModel {
    /// Wraps a network with one output (validated).
    pub fn new(network: Network, threshold: f64) -> Result<MlpModel> {
        let m = MlpModel {
            network,
            threshold,
            import_report: Vec::new(),
        };
        m.validate()?;
        Ok(m)
    }

    /// The same model with the given import report.
    pub fn with_import_report(mut self, report: Vec<String>) -> MlpModel {
        self.import_report = report;
        self
    }

    pub(crate) fn validate(&self) -> Result<()> {
        self.network.validate()?;
        if self.network.n_outputs() != 1 {
            return Err(Error::InvalidArgument(format!(
                "an MLP classifier has one output, this network has {}",
                self.network.n_outputs()
            )));
        }
        if self.network.layers.last().map(|l| l.activation) != Some(Activation::Identity) {
            return Err(Error::InvalidArgument(
                "the output layer of an MLP classifier must be linear (it is the log-odds)".into(),
            ));
        }
        super::linear::check_threshold(self.threshold)
    }

    /// Trains on encoded rows and 0/1 labels; the same options give the same bits.
    pub fn train(x: &[Vec<f64>], y: &[f64], opts: &MlpTraining) -> Result<MlpModel> {
        if x.is_empty() {
            return Err(Error::InvalidArgument("cannot train on no rows".into()));
        }
        check_len("labels", x.len(), y.len())?;
        super::check_training_labels(y)?;
        if opts.batch_size == 0 || opts.hidden.contains(&0) {
            return Err(Error::InvalidArgument(
                "batch size and layer sizes must be positive".into(),
            ));
        }
        let lr_ok = opts.learning_rate > 0.0 && opts.learning_rate.is_finite();
        let l2_ok = opts.l2 >= 0.0 && opts.l2.is_finite();
        if !lr_ok || !l2_ok {
            return Err(Error::InvalidArgument(
                "learning rate must be positive and l2 non-negative".into(),
            ));
        }
        let d = x[0].len();
        for r in x {
            check_len("row", d, r.len())?;
            crate::error::check_finite("row", r)?;
        }
        let mut sizes = vec![d];
        sizes.extend(&opts.hidden);
        sizes.push(1);
        crate::nn::check_sizes(&sizes)?;
        let mut net = Network::new(&sizes, Activation::Relu, Activation::Identity, opts.seed);
        let mut adam = Adam::new(&net, opts.learning_rate);
        let mut cache = net.cache();
        let mut grads = net.gradients();
        let mut order: Vec<usize> = (0..x.len()).collect();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed ^ 0x9e37_79b9_7f4a_7c15);
        for _ in 0..opts.epochs {
            order.shuffle(&mut rng);
            for batch in order.chunks(opts.batch_size) {
                grads.zero();
                for &i in batch {
                    let z = net.forward_cached(&x[i], &mut cache)[0];
                    // d BCE-with-logits / dz = σ(z) − y
                    let dz = super::sigmoid(z) - y[i];
                    net.backward(&x[i], &mut cache, &[dz], &mut grads, None);
                }
                grads.scale(1.0 / batch.len() as f64);
                if opts.l2 > 0.0 {
                    for (g, l) in grads.weights.iter_mut().zip(&net.layers) {
                        for (gi, wi) in g.iter_mut().zip(&l.weights) {
                            *gi += opts.l2 * wi;
                        }
                    }
                }
                adam.step(&mut net, &grads);
            }
        }
        MlpModel::new(net, 0.5)
    }
}

impl Model for MlpModel {
    fn input_dim(&self) -> usize {
        self.network.n_inputs()
    }
    fn as_mlp(&self) -> Option<&MlpModel> {
        Some(self)
    }
    fn threshold(&self) -> f64 {
        self.threshold
    }
    fn scratch_len(&self) -> usize {
        // forward buffers + per-layer pre-activations + backward vectors
        let sum: usize = self.network.layers.iter().map(|l| l.n_out).sum();
        self.network.scratch_len() + 2 * sum + 2 * self.network.max_width()
    }
    fn score_in(&self, x: &[f64], scratch: &mut [f64]) -> f64 {
        let mut out = [0.0];
        self.network
            .forward_in(x, &mut out, &mut scratch[..self.network.scratch_len()]);
        out[0]
    }
    fn perturbed_scratch_len(&self) -> usize {
        let first = &self.network.layers[0];
        let hp = first.n_out.next_multiple_of(UNITS);
        // base + column slab (every input may be noisy) + a block of first-layer
        // pre-activations + the forward scratch of the remaining layers
        hp + first.n_in * hp + PERTURBED_BLOCK * hp + self.network.scratch_len()
    }
    /// Computes the first layer's pre-activations at `x`, `W₁x + b₁`, and
    /// copies the columns `W₁[:, c]` of the noisy inputs into one contiguous,
    /// zero-padded slab.
    fn prepare_perturbed(&self, x: &[f64], cols: &[usize], scratch: &mut [f64]) {
        let first = &self.network.layers[0];
        let hp = first.n_out.next_multiple_of(UNITS);
        let (base, rest) = scratch.split_at_mut(hp);
        let slab = &mut rest[..cols.len() * hp];
        base.fill(0.0);
        slab.fill(0.0);
        for o in 0..first.n_out {
            let row = &first.weights[o * first.n_in..(o + 1) * first.n_in];
            base[o] = crate::nn::dot(row, x) + first.bias[o];
            for (k, &c) in cols.iter().enumerate() {
                slab[k * hp + o] = row[c];
            }
        }
    }
    /// Noise touches m of the inputs only, so the first layer's pre-activation
    /// of `x + δ` is `(W₁x + b₁) + Σ_k W₁[:, c_k]·δ_k`: an m-term update of
    /// every first-layer unit instead of a full product (m = 23 of 57 inputs
    /// on HELOC), summed over k in order for every unit (vectorised across
    /// units, each term a fused multiply-add `f64::mul_add`, exactly rounded
    /// on every CPU, so every CPU gives the same bits). The remaining layers
    /// run as in [`Network::forward_in`], except that a two-layer network's
    /// output unit also uses fused multiply-adds. The sums are grouped and
    /// rounded differently from the plain forward pass, so scores can differ
    /// from [`Model::score_in`] in the last bits (tested within 1e-12).
    fn score_perturbed(
        &self,
        _x: &[f64],
        cols: &[usize],
        deltas: &[f64],
        n: usize,
        out: &mut [f64],
        scratch: &mut [f64],
    ) {
        let layers = &self.network.layers;
        let first = &layers[0];
        let hp = first.n_out.next_multiple_of(UNITS);
        let (base, rest) = scratch.split_at_mut(hp);
        let (slab, rest) = rest.split_at_mut(first.n_in * hp);
        let (hidden, fwd) = rest.split_at_mut(PERTURBED_BLOCK * hp);
        let slab = &slab[..cols.len() * hp];
        first_layer_block(base, slab, deltas, cols.len(), n, hidden);
        if layers.len() == 2 {
            two_layer_finish(first.activation, &layers[1], hidden, n, out);
            return;
        }
        for (s, o) in out[..n].iter_mut().enumerate() {
            let h = &mut hidden[s * hp..s * hp + first.n_out];
            activate(first.activation, h);
            *o = if layers.len() == 1 {
                h[0]
            } else {
                let mut y = [0.0];
                self.network.forward_from(1, h, &mut y, fwd);
                y[0]
            };
        }
    }
    fn score_gradient_in(&self, x: &[f64], grad: &mut [f64], scratch: &mut [f64]) -> f64 {
        // Forward pass storing pre-activations and outputs in the scratch, then a
        // backward pass for the input gradient only (no parameter gradients).
        let layers = &self.network.layers;
        let sum: usize = layers.iter().map(|l| l.n_out).sum();
        let w = self.network.max_width();
        let (zs, rest) = scratch.split_at_mut(sum);
        let (acts, rest) = rest.split_at_mut(sum);
        let (da, rest) = rest.split_at_mut(w);
        let din = &mut rest[..w];
        let mut off = 0;
        for (li, l) in layers.iter().enumerate() {
            let (prev, cur) = acts.split_at_mut(off);
            let input: &[f64] = if li == 0 { x } else { &prev[off - l.n_in..off] };
            for o in 0..l.n_out {
                let row = &l.weights[o * l.n_in..(o + 1) * l.n_in];
                let z = row.iter().zip(input).map(|(a, b)| a * b).sum::<f64>() + l.bias[o];
                zs[off + o] = z;
                cur[o] = match l.activation {
                    Activation::Relu => z.max(0.0),
                    Activation::Identity => z,
                    Activation::Tanh => z.tanh(),
                    Activation::Sigmoid => super::sigmoid(z),
                };
            }
            off += l.n_out;
        }
        let score = acts[sum - 1];
        da[0] = 1.0;
        let mut end = sum;
        for l in layers.iter().rev() {
            let start = end - l.n_out;
            for o in 0..l.n_out {
                let (z, a) = (zs[start + o], acts[start + o]);
                da[o] *= match l.activation {
                    Activation::Relu => f64::from(u8::from(z > 0.0)),
                    Activation::Identity => 1.0,
                    Activation::Tanh => 1.0 - a * a,
                    Activation::Sigmoid => a * (1.0 - a),
                };
            }
            din[..l.n_in].fill(0.0);
            for o in 0..l.n_out {
                let row = &l.weights[o * l.n_in..(o + 1) * l.n_in];
                for k in 0..l.n_in {
                    din[k] += da[o] * row[k];
                }
            }
            da[..l.n_in].copy_from_slice(&din[..l.n_in]);
            end = start;
        }
        grad.copy_from_slice(&da[..x.len()]);
        score
    }
}

/// `h ← act(h)` element by element, as `Activation::apply` (specialised per
/// activation so that the loop vectorises).
#[inline(always)]
fn activate(act: Activation, h: &mut [f64]) {
    match act {
        Activation::Identity => {}
        Activation::Relu => h.iter_mut().for_each(|v| *v = Activation::Relu.apply(*v)),
        Activation::Tanh => h.iter_mut().for_each(|v| *v = Activation::Tanh.apply(*v)),
        Activation::Sigmoid => h
            .iter_mut()
            .for_each(|v| *v = Activation::Sigmoid.apply(*v)),
    }
}

/// `crate::nn::dot` with each term fused, `acc = a·b + acc` rounded once
/// (`f64::mul_add`): the same eight accumulators and the same fixed order, so
/// the result is deterministic and identical on every CPU.
#[inline(always)]
fn dot_fma(a: &[f64], b: &[f64]) -> f64 {
    crate::nn::dot_with(a, b, |x, y, acc| x.mul_add(y, acc))
}

super::simd_fn! {
    fma:
    /// For a network of two layers: the hidden activations of each point of
    /// the block, then the output unit as `Network::forward_in` computes it,
    /// but with fused multiply-adds in the dot product ([`dot_fma`]).
    fn two_layer_finish(
        act: Activation,
        out_layer: &crate::nn::Dense,
        hidden: &mut [f64],
        n: usize,
        out: &mut [f64],
    ) {
        let hp = hidden.len() / PERTURBED_BLOCK;
        let row = &out_layer.weights[..out_layer.n_in];
        for (s, o) in out[..n].iter_mut().enumerate() {
            let h = &mut hidden[s * hp..s * hp + out_layer.n_in];
            activate(act, h);
            *o = out_layer
                .activation
                .apply(dot_fma(row, h) + out_layer.bias[0]);
        }
    }
}

/// First-layer units updated together (one AVX-512 or two AVX2 registers).
const UNITS: usize = 8;

/// Points updated together in [`first_layer_block`]: with [`UNITS`] units
/// each, `POINTS` independent sums are in flight, which hides the latency of
/// the additions.
const POINTS: usize = 4;

super::simd_fn! {
    fma:
    /// `hidden[s·hp + o] = base[o] + Σ_k slab[k·hp + o]·δ_ks` for the points
    /// `s < n` of a block (rounded up to whole groups of [`POINTS`]; the
    /// extra rows are never read), the sum over k in order, each term fused
    /// into the running sum with one rounding (`f64::mul_add`: a `vfmadd` on
    /// CPUs with FMA, the same bits from a software fma elsewhere).
    fn first_layer_block(
        base: &[f64],
        slab: &[f64],
        deltas: &[f64],
        m: usize,
        n: usize,
        hidden: &mut [f64],
    ) {
        let hp = base.len();
        for s in (0..n).step_by(POINTS) {
            let rows = &mut hidden[s * hp..(s + POINTS) * hp];
            for u in (0..hp).step_by(UNITS) {
                let b: &[f64; UNITS] = base[u..u + UNITS].try_into().expect("whole units");
                let mut acc = [*b; POINTS];
                for k in 0..m {
                    let d: &[f64; POINTS] = deltas[k * PERTURBED_BLOCK + s..][..POINTS]
                        .try_into()
                        .expect("whole points");
                    let w: &[f64; UNITS] = slab[k * hp + u..][..UNITS]
                        .try_into()
                        .expect("whole units");
                    for p in 0..POINTS {
                        for l in 0..UNITS {
                            acc[p][l] = w[l].mul_add(d[p], acc[p][l]);
                        }
                    }
                }
                for (p, a) in acc.iter().enumerate() {
                    rows[p * hp + u..p * hp + u + UNITS].copy_from_slice(a);
                }
            }
        }
    }
}

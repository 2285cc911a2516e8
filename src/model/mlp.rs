//! A multi-layer perceptron classifier: ReLU hidden layers and a single output
//! unit whose pre-activation is the score (log-odds); the probability is its
//! sigmoid. CROCO's experiments use one hidden layer of 50 ReLU units.

use super::Model;
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
pub struct MlpModel {
    pub network: Network,
    #[serde(default = "half")]
    pub threshold: f64,
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
        let m = MlpModel { network, threshold };
        m.validate()?;
        Ok(m)
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

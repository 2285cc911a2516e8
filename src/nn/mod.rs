//! A small dense network with backpropagation and Adam, shared by the MLP
//! classifier ([`crate::model::MlpModel`]) and the P-DQN agent
//! ([`crate::sequential`]). Plain `f64` row-major weights: the networks cfx
//! needs are small (tens to hundreds of units), where a straightforward loop
//! beats the set-up cost of a BLAS call.
//!
//! Every forward and backward pass works in caller-owned buffers
//! ([`Cache`], [`Gradients`]), so a training loop allocates nothing per step.

use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// Element-wise activation of a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    Identity,
    Relu,
    Tanh,
    Sigmoid,
}

impl Activation {
    #[inline]
    pub(crate) fn apply(self, z: f64) -> f64 {
        match self {
            Activation::Identity => z,
            Activation::Relu => z.max(0.0),
            Activation::Tanh => z.tanh(),
            Activation::Sigmoid => crate::model::sigmoid(z),
        }
    }
    /// Derivative expressed through the pre-activation `z` and output `a`.
    #[inline]
    fn derivative(self, z: f64, a: f64) -> f64 {
        match self {
            Activation::Identity => 1.0,
            Activation::Relu => {
                if z > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Activation::Tanh => 1.0 - a * a,
            Activation::Sigmoid => a * (1.0 - a),
        }
    }
}

/// A fully connected layer: `a = act(W x + b)`, `W` row-major `n_out × n_in`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dense {
    pub n_in: usize,
    pub n_out: usize,
    pub weights: Vec<f64>,
    pub bias: Vec<f64>,
    pub activation: Activation,
}

/// A stack of dense layers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Network {
    pub layers: Vec<Dense>,
}

/// Activations kept by a forward pass for the backward pass.
#[derive(Debug, Clone)]
pub struct Cache {
    /// Pre-activations per layer.
    z: Vec<Vec<f64>>,
    /// Outputs per layer (the last one is the network output).
    a: Vec<Vec<f64>>,
    /// Backward scratch: gradient w.r.t. the current layer's output and input.
    d_a: Vec<f64>,
    d_in: Vec<f64>,
}

/// Parameter gradients, shaped like the network.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradients {
    pub weights: Vec<Vec<f64>>,
    pub bias: Vec<Vec<f64>>,
}

/// Dot product with eight independent accumulators (fixed order, so results
/// are deterministic), which lets the compiler keep several multiply-adds in
/// flight; a single running sum serialises on the add latency.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    dot_with(a, b, |x, y, acc| acc + x * y)
}

/// The accumulation scheme of [`dot`] with the step `acc ← madd(a_i, b_i, acc)`
/// given by the caller (a plain multiply-add, or a fused one), so that every
/// variant sums in the same order.
#[inline(always)]
pub(crate) fn dot_with(a: &[f64], b: &[f64], madd: impl Fn(f64, f64, f64) -> f64) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for j in 0..8 {
            acc[j] = madd(x[j], y[j], acc[j]);
        }
    }
    let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (x, y) in ra.iter().zip(rb) {
        s = madd(*x, *y, s);
    }
    s
}

/// The most parameters (weights and biases) a network cfx builds may hold:
/// 2²⁶ ≈ 67 million, 512 MiB of `f64`, with three more copies while training
/// (gradients and Adam's two moments). The networks cfx needs hold thousands;
/// a caller-given width beyond this is an absurd size, refused before any
/// allocation instead of aborting the host when the allocation fails.
pub const MAX_PARAMETERS: usize = 1 << 26;

/// Checks layer sizes `[n_in, h1, …, n_out]` for a network: every size
/// positive and the parameter count (computed without overflow) at most
/// [`MAX_PARAMETERS`]; returns that count.
pub fn check_sizes(sizes: &[usize]) -> crate::Result<usize> {
    let bad = |m: String| Err(crate::Error::InvalidArgument(m));
    if sizes.len() < 2 || sizes.contains(&0) {
        return bad(format!(
            "a network needs positive input, layer and output sizes, got {sizes:?}"
        ));
    }
    let mut total = 0usize;
    for w in sizes.windows(2) {
        let layer = w[0]
            .checked_mul(w[1])
            .and_then(|p| p.checked_add(w[1]))
            .and_then(|p| total.checked_add(p));
        match layer {
            Some(t) if t <= MAX_PARAMETERS => total = t,
            _ => {
                return bad(format!(
                    "layer sizes {sizes:?} need more than {MAX_PARAMETERS} parameters"
                ));
            }
        }
    }
    Ok(total)
}

impl Network {
    /// A network with layer sizes `sizes = [n_in, h1, …, n_out]`, `hidden`
    /// activations and an `output` activation, initialised He-uniform for ReLU
    /// layers and Glorot-uniform otherwise, from a seeded generator.
    pub fn new(sizes: &[usize], hidden: Activation, output: Activation, seed: u64) -> Network {
        assert!(
            sizes.len() >= 2,
            "a network needs an input and an output size"
        );
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let n = sizes.len() - 1;
        let layers = (0..n)
            .map(|l| {
                let (n_in, n_out) = (sizes[l], sizes[l + 1]);
                let act = if l + 1 == n { output } else { hidden };
                let limit = match act {
                    Activation::Relu => (6.0 / n_in as f64).sqrt(),
                    _ => (6.0 / (n_in + n_out) as f64).sqrt(),
                };
                Dense {
                    n_in,
                    n_out,
                    weights: (0..n_in * n_out)
                        .map(|_| rng.random_range(-limit..limit))
                        .collect(),
                    bias: vec![0.0; n_out],
                    activation: act,
                }
            })
            .collect();
        Network { layers }
    }

    pub fn n_inputs(&self) -> usize {
        self.layers[0].n_in
    }
    pub fn n_outputs(&self) -> usize {
        self.layers.last().map_or(0, |l| l.n_out)
    }

    /// Checks shapes and finiteness.
    pub fn validate(&self) -> crate::Result<()> {
        use crate::Error;
        if self.layers.is_empty() {
            return Err(Error::InvalidArgument(
                "a network needs at least one layer".into(),
            ));
        }
        for (i, l) in self.layers.iter().enumerate() {
            if l.n_in == 0 || l.n_out == 0 {
                return Err(Error::InvalidArgument(format!("layer {i} has a zero size")));
            }
            crate::error::check_len(
                &format!("layer {i} weights"),
                l.n_in * l.n_out,
                l.weights.len(),
            )?;
            crate::error::check_len(&format!("layer {i} bias"), l.n_out, l.bias.len())?;
            crate::error::check_finite(&format!("layer {i} weights"), &l.weights)?;
            crate::error::check_finite(&format!("layer {i} bias"), &l.bias)?;
            if i > 0 {
                crate::error::check_len(
                    &format!("layer {i} input"),
                    self.layers[i - 1].n_out,
                    l.n_in,
                )?;
            }
        }
        Ok(())
    }

    /// Widest layer output (scratch sizing).
    pub fn max_width(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.n_out)
            .max()
            .unwrap_or(0)
            .max(self.n_inputs())
    }

    /// Scratch length for [`Network::forward_in`].
    pub fn scratch_len(&self) -> usize {
        2 * self.max_width()
    }

    /// Forward pass without a cache; `scratch` has [`Network::scratch_len`]
    /// values; the output is written into `out`. Never allocates.
    pub fn forward_in(&self, x: &[f64], out: &mut [f64], scratch: &mut [f64]) {
        self.forward_from(0, x, out, scratch);
    }

    /// The forward pass from layer `first` on: `x` is the input of that layer
    /// (the output of layer `first − 1`). The same arithmetic as
    /// [`Network::forward_in`], which is `forward_from(0, …)`. Never allocates.
    pub fn forward_from(&self, first: usize, x: &[f64], out: &mut [f64], scratch: &mut [f64]) {
        let w = self.max_width();
        let (buf_a, buf_b) = scratch.split_at_mut(w);
        let mut cur: &mut [f64] = buf_a;
        let mut next: &mut [f64] = buf_b;
        cur[..x.len()].copy_from_slice(x);
        let mut cur_len = x.len();
        for l in &self.layers[first..] {
            for o in 0..l.n_out {
                let row = &l.weights[o * l.n_in..(o + 1) * l.n_in];
                let z = dot(row, &cur[..cur_len]) + l.bias[o];
                next[o] = l.activation.apply(z);
            }
            cur_len = l.n_out;
            std::mem::swap(&mut cur, &mut next);
        }
        out.copy_from_slice(&cur[..cur_len]);
    }

    /// Forward pass (allocating convenience).
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.n_outputs()];
        let mut s = vec![0.0; self.scratch_len()];
        self.forward_in(x, &mut out, &mut s);
        out
    }

    /// A cache sized for this network.
    pub fn cache(&self) -> Cache {
        Cache {
            z: self.layers.iter().map(|l| vec![0.0; l.n_out]).collect(),
            a: self.layers.iter().map(|l| vec![0.0; l.n_out]).collect(),
            d_a: vec![0.0; self.max_width()],
            d_in: vec![0.0; self.max_width()],
        }
    }

    /// Zero gradients shaped like this network.
    pub fn gradients(&self) -> Gradients {
        Gradients {
            weights: self
                .layers
                .iter()
                .map(|l| vec![0.0; l.weights.len()])
                .collect(),
            bias: self.layers.iter().map(|l| vec![0.0; l.n_out]).collect(),
        }
    }

    /// Forward pass that keeps the activations; returns the output slice.
    pub fn forward_cached<'c>(&self, x: &[f64], cache: &'c mut Cache) -> &'c [f64] {
        for (li, l) in self.layers.iter().enumerate() {
            let (before, after) = cache.a.split_at_mut(li);
            let input: &[f64] = if li == 0 { x } else { &before[li - 1] };
            let z = &mut cache.z[li];
            let a = &mut after[0];
            for o in 0..l.n_out {
                let row = &l.weights[o * l.n_in..(o + 1) * l.n_in];
                z[o] = dot(row, input) + l.bias[o];
                a[o] = l.activation.apply(z[o]);
            }
        }
        cache.a.last().expect("at least one layer")
    }

    /// Backward pass after [`Network::forward_cached`] on input `x`: adds the
    /// parameter gradients of `Σ d_out·output` into `grads` and, when asked,
    /// writes the gradient with respect to the input into `d_input`.
    pub fn backward(
        &self,
        x: &[f64],
        cache: &mut Cache,
        d_out: &[f64],
        grads: &mut Gradients,
        d_input: Option<&mut [f64]>,
    ) {
        let n = self.layers.len();
        let Cache { z, a, d_a, d_in } = cache;
        d_a[..d_out.len()].copy_from_slice(d_out);
        for li in (0..n).rev() {
            let l = &self.layers[li];
            let input: &[f64] = if li == 0 { x } else { &a[li - 1] };
            // delta = dL/dz
            for o in 0..l.n_out {
                d_a[o] *= l.activation.derivative(z[li][o], a[li][o]);
            }
            let gw = &mut grads.weights[li];
            let gb = &mut grads.bias[li];
            // The first layer's input gradient is needed only when the caller asks for it.
            let need_d_in = li > 0 || d_input.is_some();
            d_in[..l.n_in].fill(0.0);
            for o in 0..l.n_out {
                let delta = d_a[o];
                if delta == 0.0 {
                    continue;
                }
                gb[o] += delta;
                let row = &l.weights[o * l.n_in..(o + 1) * l.n_in];
                let grow = &mut gw[o * l.n_in..(o + 1) * l.n_in];
                for (g, x) in grow.iter_mut().zip(&input[..l.n_in]) {
                    *g += delta * x;
                }
                if need_d_in {
                    for (d, w) in d_in[..l.n_in].iter_mut().zip(row) {
                        *d += delta * w;
                    }
                }
            }
            d_a[..l.n_in].copy_from_slice(&d_in[..l.n_in]);
        }
        if let Some(di) = d_input {
            di.copy_from_slice(&d_a[..self.n_inputs()]);
        }
    }

    /// Polyak averaging: `self ← (1 − τ)·self + τ·source`.
    pub fn soft_update(&mut self, source: &Network, tau: f64) {
        for (t, s) in self.layers.iter_mut().zip(&source.layers) {
            for (a, b) in t.weights.iter_mut().zip(&s.weights) {
                *a = (1.0 - tau) * *a + tau * b;
            }
            for (a, b) in t.bias.iter_mut().zip(&s.bias) {
                *a = (1.0 - tau) * *a + tau * b;
            }
        }
    }
}

impl Gradients {
    /// Sets every gradient to zero.
    pub fn zero(&mut self) {
        self.weights.iter_mut().for_each(|g| g.fill(0.0));
        self.bias.iter_mut().for_each(|g| g.fill(0.0));
    }

    /// Multiplies every gradient by `s`.
    pub fn scale(&mut self, s: f64) {
        self.weights.iter_mut().flatten().for_each(|g| *g *= s);
        self.bias.iter_mut().flatten().for_each(|g| *g *= s);
    }

    /// Euclidean norm over all parameters.
    pub fn norm(&self) -> f64 {
        self.weights
            .iter()
            .flatten()
            .chain(self.bias.iter().flatten())
            .map(|g| g * g)
            .sum::<f64>()
            .sqrt()
    }

    /// Rescales the gradients so their norm is at most `max_norm` (gradient clipping).
    pub fn clip_norm(&mut self, max_norm: f64) {
        let n = self.norm();
        if n > max_norm && n > 0.0 {
            self.scale(max_norm / n);
        }
    }
}

/// Adam (Kingma & Ba) with bias correction.
#[derive(Debug, Clone)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    t: u64,
    m: Gradients,
    v: Gradients,
}

impl Adam {
    /// Adam for `net` with learning rate `lr` and the usual (0.9, 0.999, 1e-8).
    pub fn new(net: &Network, lr: f64) -> Adam {
        Adam {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            t: 0,
            m: net.gradients(),
            v: net.gradients(),
        }
    }

    /// One descent step on `net` with gradients `g`.
    pub fn step(&mut self, net: &mut Network, g: &Gradients) {
        self.t += 1;
        let b1t = 1.0 - self.beta1.powi(self.t.min(i32::MAX as u64) as i32);
        let b2t = 1.0 - self.beta2.powi(self.t.min(i32::MAX as u64) as i32);
        let (lr, b1, b2, eps) = (self.lr, self.beta1, self.beta2, self.eps);
        let update = |p: &mut [f64], g: &[f64], m: &mut [f64], v: &mut [f64]| {
            for i in 0..p.len() {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                p[i] -= lr * (m[i] / b1t) / ((v[i] / b2t).sqrt() + eps);
            }
        };
        for (li, l) in net.layers.iter_mut().enumerate() {
            update(
                &mut l.weights,
                &g.weights[li],
                &mut self.m.weights[li],
                &mut self.v.weights[li],
            );
            update(
                &mut l.bias,
                &g.bias[li],
                &mut self.m.bias[li],
                &mut self.v.bias[li],
            );
        }
    }
}

#[cfg(test)]
mod tests;

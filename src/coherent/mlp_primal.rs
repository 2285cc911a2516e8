//! A first incumbent for the MIP of a ReLU network (`mlp.rs`): a cheap
//! coherent answer the network accepts, found by its own forward pass and
//! handed to HiGHS as a start, so that the branch and bound prunes from its
//! first node and a time limit always has an answer to report with its gap.
//! Without one, HiGHS on HELOC's 2×32 network spent whole time limits in its
//! heuristics without a feasible point.
//!
//! # The moves
//! Each feature's endings are sampled from the program's own menus
//! ([`Workspace::build_samples`]): staying put, every reachable special state
//! and level, and about [`SAMPLES`] reachable points spread over the value
//! range, on its grid, within its direction and actionable bounds. A *move*
//! sets one feature to another of its endings.
//!
//! # The heuristic
//! From every feature's cheapest ending (staying put): take the move that gets
//! the applicant accepted at the least total cost if one exists, else the move
//! that gains the most score per unit of cost (the ratio greedy of knapsack
//! heuristics), until accepted. Then polish, as MIP solvers polish
//! incumbents: move a feature to a cheaper ending that keeps the acceptance,
//! the largest saving first, while one exists. A move changes the first
//! layer's pre-activations by the moved feature's columns of `W₁` only, so
//! scoring one costs `n₁·width` plus the layers after the first — thousands
//! of flops, not a full pass. The answer is re-scored with the network's own
//! forward pass ([`Model::score`]) before it is used; the MIP proves what is
//! optimal, so the heuristic only needs to be feasible, never best.

use super::separable::Workspace;
use crate::error::Result;
use crate::model::{MlpModel, Model};
use crate::schema::Schema;

/// Evenly spaced slots each value range is sampled at (from either side).
const SAMPLES: usize = 32;

/// Greedy and polishing rounds, per feature.
const ROUNDS_PER_FEATURE: usize = 4;

/// One ending of one feature: its state, slot (value state), cost, and the
/// feature's columns of the encoded vector.
struct Ending {
    state: usize,
    slot: f64,
    cost: f64,
    enc: Vec<f64>,
}

/// A coherent answer the network accepts: per feature its state and slot (the
/// slot read in the value state only), its cost and its score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Start {
    pub endings: Vec<(usize, f64)>,
    pub cost: f64,
    pub score: f64,
}

/// The network scored from its first layer's pre-activations.
struct Net<'a> {
    m: &'a MlpModel,
    /// `W₁` column-major: input `e`'s weights at `e·n₁ .. (e+1)·n₁`.
    w1t: Vec<f64>,
    n1: usize,
    h1: Vec<f64>,
    out: Vec<f64>,
    scratch: Vec<f64>,
}

impl<'a> Net<'a> {
    fn new(m: &'a MlpModel) -> Net<'a> {
        let l = &m.network.layers[0];
        let mut w1t = vec![0.0; l.n_in * l.n_out];
        for o in 0..l.n_out {
            for e in 0..l.n_in {
                w1t[e * l.n_out + o] = l.weights[o * l.n_in + e];
            }
        }
        Net {
            m,
            w1t,
            n1: l.n_out,
            h1: vec![0.0; l.n_out],
            out: vec![0.0; m.network.n_outputs()],
            scratch: vec![0.0; m.network.scratch_len()],
        }
    }

    /// `z₁ += Σ_e (to_e − from_e)·W₁[:, e]` over the columns from `start`.
    fn shift(&self, z1: &mut [f64], start: usize, from: &[f64], to: &[f64]) {
        for (k, (a, b)) in from.iter().zip(to).enumerate() {
            let d = b - a;
            if d != 0.0 {
                let col = &self.w1t[(start + k) * self.n1..(start + k + 1) * self.n1];
                for (z, w) in z1.iter_mut().zip(col) {
                    *z += d * w;
                }
            }
        }
    }

    /// The score (log-odds) of the first layer's pre-activations `z1`.
    fn score(&mut self, z1: &[f64]) -> f64 {
        let layers = &self.m.network.layers;
        if layers.len() == 1 {
            return z1[0];
        }
        let act = layers[0].activation;
        for (h, &z) in self.h1.iter_mut().zip(z1) {
            *h = act.apply(z);
        }
        self.m
            .network
            .forward_from(1, &self.h1, &mut self.out, &mut self.scratch);
        self.out[0]
    }
}

/// The heuristic of the module docs: a coherent answer scoring at least
/// `need` (log-odds), or `None` when it finds none (the MIP then starts
/// without one).
pub(crate) fn greedy_start(
    schema: &Schema,
    m: &MlpModel,
    factual: &[f64],
    need: f64,
) -> Result<Option<Start>> {
    let mut ws = Workspace::new();
    ws.build_samples(schema, factual, SAMPLES)?;
    let n = schema.n_features();
    let mut menus: Vec<Vec<Ending>> = Vec::with_capacity(n);
    let mut buf = vec![0.0; schema.encoded_dim()];
    for i in 0..n {
        let lay = schema.layout(i);
        let mut endings: Vec<Ending> = Vec::new();
        for (k, o) in ws.menu(i).iter().enumerate() {
            let slot = if o.state == 0 { o.slot } else { 0.0 };
            if endings
                .iter()
                .any(|e| e.state == o.state && e.slot.to_bits() == slot.to_bits())
            {
                continue;
            }
            ws.write_feature(
                schema,
                i,
                super::separable::Pick {
                    option: k,
                    units: 0.0,
                },
                &mut buf,
            )?;
            endings.push(Ending {
                state: o.state,
                slot,
                cost: o.cost,
                enc: buf[lay.start..lay.start + lay.width].to_vec(),
            });
        }
        if endings.is_empty() {
            return Ok(None); // the polytope is empty; the MIP proves it
        }
        menus.push(endings);
    }
    let mut cur: Vec<usize> = menus
        .iter()
        .map(|menu| {
            (0..menu.len())
                .min_by(|&a, &b| menu[a].cost.total_cmp(&menu[b].cost))
                .unwrap_or(0)
        })
        .collect();
    let mut x = vec![0.0; schema.encoded_dim()];
    for (i, menu) in menus.iter().enumerate() {
        let lay = schema.layout(i);
        x[lay.start..lay.start + lay.width].copy_from_slice(&menu[cur[i]].enc);
    }
    let layer = &m.network.layers[0];
    let mut z1: Vec<f64> = (0..layer.n_out)
        .map(|o| {
            let row = &layer.weights[o * layer.n_in..(o + 1) * layer.n_in];
            layer.bias[o] + row.iter().zip(&x).map(|(w, v)| w * v).sum::<f64>()
        })
        .collect();
    let mut net = Net::new(m);
    let mut score = net.score(&z1);
    let mut total: f64 = cur.iter().zip(&menus).map(|(&k, menu)| menu[k].cost).sum();
    let mut trial = z1.clone();
    let rounds = ROUNDS_PER_FEATURE * n.max(1);
    // Greedy until accepted.
    let mut round = 0;
    while score < need {
        round += 1;
        if round > rounds {
            return Ok(None);
        }
        let mut finish: Option<(usize, usize, f64)> = None;
        let mut step: Option<(usize, usize, f64, f64)> = None;
        each_move(
            schema,
            &menus,
            &mut net,
            &mut trial,
            &cur,
            &z1,
            &mut |i, k, s| {
                let dc = menus[i][k].cost - menus[i][cur[i]].cost;
                if s >= need {
                    if finish.is_none_or(|(_, _, c)| total + dc < c) {
                        finish = Some((i, k, total + dc));
                    }
                } else if s > score {
                    let gain = s - score;
                    let ratio = if dc <= 0.0 { f64::INFINITY } else { gain / dc };
                    if step.is_none_or(|(_, _, r, g)| ratio > r || (ratio == r && gain > g)) {
                        step = Some((i, k, ratio, gain));
                    }
                }
            },
        );
        let (i, k) = match (finish, step) {
            (Some((i, k, _)), _) => (i, k),
            (None, Some((i, k, _, _))) => (i, k),
            (None, None) => return Ok(None),
        };
        total += menus[i][k].cost - menus[i][cur[i]].cost;
        let start = schema.layout(i).start;
        net.shift(&mut z1, start, &menus[i][cur[i]].enc, &menus[i][k].enc);
        cur[i] = k;
        score = net.score(&z1);
    }
    // Polish: the largest saving that keeps the acceptance, while one exists.
    for _ in 0..rounds {
        let mut best: Option<(usize, usize, f64)> = None;
        each_move(
            schema,
            &menus,
            &mut net,
            &mut trial,
            &cur,
            &z1,
            &mut |i, k, s| {
                let dc = menus[i][k].cost - menus[i][cur[i]].cost;
                if s >= need && dc < 0.0 && best.is_none_or(|(_, _, b)| dc < b) {
                    best = Some((i, k, dc));
                }
            },
        );
        let Some((i, k, dc)) = best else { break };
        total += dc;
        let start = schema.layout(i).start;
        net.shift(&mut z1, start, &menus[i][cur[i]].enc, &menus[i][k].enc);
        cur[i] = k;
    }
    for (i, menu) in menus.iter().enumerate() {
        let lay = schema.layout(i);
        x[lay.start..lay.start + lay.width].copy_from_slice(&menu[cur[i]].enc);
    }
    let score = m.score(&x);
    if score < need {
        return Ok(None);
    }
    Ok(Some(Start {
        endings: cur
            .iter()
            .zip(&menus)
            .map(|(&k, menu)| (menu[k].state, menu[k].slot))
            .collect(),
        cost: total,
        score,
    }))
}

/// Scores every move from `cur` (first-layer pre-activations `z1`) and hands
/// each (feature, ending, score) to `f`.
fn each_move(
    schema: &Schema,
    menus: &[Vec<Ending>],
    net: &mut Net<'_>,
    trial: &mut [f64],
    cur: &[usize],
    z1: &[f64],
    f: &mut dyn FnMut(usize, usize, f64),
) {
    for (i, menu) in menus.iter().enumerate() {
        let start = schema.layout(i).start;
        for (k, e) in menu.iter().enumerate() {
            if k == cur[i] {
                continue;
            }
            trial.copy_from_slice(z1);
            net.shift(trial, start, &menu[cur[i]].enc, &e.enc);
            f(i, k, net.score(trial));
        }
    }
}

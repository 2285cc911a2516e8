//! The separable solver's menus: each feature's options (stay put, special
//! states, levels, points and runs of its value range) as the program's
//! feasible endings allow them under the schema's actionability, change limits
//! and Russell's fixes, for a linear model ([`linear_menu`]) and for additive
//! pieces, a scorecard's bins or a tree ensemble's cells ([`piecewise_menu`]).
//! Kept apart from the branch and bound in `separable.rs`, which sees only the
//! menus' (gain, cost) points and runs.

use super::{Extension, MenuOption, Workspace};
use crate::coherent::Fix;
use crate::coherent::program::bin_slot_interval;
use crate::error::Result;
use crate::model::LinearModel;
use crate::model::scorecard::{Compiled, ValueBins};
use crate::schema::{Direction, FeatureKind, Schema};

/// Pushes feature `i`'s menu for a linear model and returns the feature's score
/// contribution at the factual.
///
/// The options mirror the program's feasible endings (`program.rs`):
/// * stay put (always offered unless a fix forbids it; for an in-range value
///   with a run, as the run's first point, so that no choice is offered twice
///   and the branch and bound never explores the same subtree twice);
/// * a special state or level `j` the transition rules allow: a point;
/// * the value range: from the factual value (in range) a run towards the
///   model's favourable end, within the actionable bounds and the direction
///   (whole grid steps on an integer/step feature); from outside the actionable
///   range, the nearest in-range point and a run on from it; from a special
///   state, the anchor (median slot clamped to the range) and a run on from it
///   (on a grid: the grid points either side of the anchor, the favourable one
///   starting the run). Moves against the model's weight cost more and gain less
///   than a point already offered, so they are left out.
pub(super) fn linear_menu(
    ws: &mut Workspace,
    schema: &Schema,
    model: &LinearModel,
    factual: &[f64],
    i: usize,
    fixes: &[Fix],
) -> Result<f64> {
    let f = &schema.features[i];
    let lay = schema.layout(i);
    let mw = &model.weights;
    let s_f = f.state_of(factual[i])?;
    let w_own = schema.state_weight(i, s_f);
    let offers = Offer::new(schema, fixes, i, s_f);
    let frozen = offers.frozen;
    let offer = |s: usize, is_stay: bool| offers.allows(s, is_stay);
    match &f.kind {
        FeatureKind::Categorical { .. } => {
            let own = mw[lay.start + s_f];
            for j in 0..f.n_states() {
                let dir_ok = match f.index_direction() {
                    Direction::IncreaseOnly => j >= s_f,
                    Direction::DecreaseOnly => j <= s_f,
                    Direction::Any => true,
                };
                if dir_ok && offer(j, j == s_f) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain: mw[lay.start + j] - own,
                        cost: if j == s_f {
                            0.0
                        } else {
                            w_own + schema.state_weight(i, j)
                        },
                        extension: None,
                    });
                }
            }
            Ok(own)
        }
        FeatureKind::Contiguous {
            lower,
            upper,
            fixed_value,
            ..
        } => {
            let a = mw[lay.start];
            let wv = schema.value_weight(i);
            let degenerate = upper <= lower;
            let (lo, hi) = schema.move_range(i, factual[i]).unwrap_or((*lower, *upper));
            let (lb, ub) = if degenerate {
                (0.0, 0.0)
            } else {
                (schema.value_to_slot(i, lo), schema.value_to_slot(i, hi))
            };
            let special = |j: usize| a * fixed_value + mw[lay.start + j];
            let (own, v) = if s_f == 0 {
                let v = if degenerate {
                    0.0
                } else {
                    schema.value_to_slot(i, factual[i])
                };
                (a * v, v)
            } else {
                (special(s_f), schema.anchor(i).clamp(lb, ub))
            };
            // Special states (and staying in the factual one).
            for j in 1..f.n_states() {
                if offer(j, j == s_f) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain: special(j) - own,
                        cost: if j == s_f {
                            0.0
                        } else {
                            w_own + schema.state_weight(i, j)
                        },
                        extension: None,
                    });
                }
            }
            let grid = if degenerate {
                None
            } else {
                schema.grid_points(i, lo, hi)
            };
            let span = upper - lower;
            // A value-state option at slot `c` reached at cost `base + wv·|c − v|`,
            // with a run of `units` units of `d_slot` each (sign: direction).
            let value_option = |c: f64, base: f64, run: Option<(f64, f64, bool)>| {
                let extension = run.and_then(|(d_slot, units, whole)| {
                    let d_gain = a * d_slot;
                    (units > 0.0 && d_gain > 0.0).then_some(Extension {
                        d_slot,
                        d_gain,
                        d_cost: wv * d_slot.abs(),
                        units,
                        whole,
                    })
                });
                MenuOption {
                    state: 0,
                    slot: c,
                    gain: a * c - own,
                    cost: base + wv * (c - v).abs(),
                    extension,
                }
            };
            if s_f == 0 {
                let movable = f.actionability.mutable && !frozen && !degenerate && offer(0, false);
                let up_ok = f.actionability.direction != Direction::DecreaseOnly;
                let down_ok = f.actionability.direction != Direction::IncreaseOnly;
                let moves = if movable {
                    value_moves(schema, i, factual[i], v, (lb, ub), (lo, hi), up_ok, down_ok)
                } else {
                    None
                };
                // Staying put is the first point of a run that starts at the
                // factual value (offered once: a separate stay point would make
                // the branch and bound explore the same choice twice).
                let mut stay_in_run = false;
                if let Some(mv) = moves {
                    let outside = mv.outside;
                    let favourable = if a > 0.0 {
                        1.0
                    } else if a < 0.0 {
                        -1.0
                    } else {
                        0.0
                    };
                    for d in [1.0, -1.0] {
                        // Towards the favourable end, by whole steps on a grid,
                        // beyond the minimum change; from outside the actionable
                        // range or off the advice grid, also the nearest point the
                        // other way (no run: it only loses score).
                        if d != favourable && !outside {
                            continue;
                        }
                        let (plo, phi) = if d > 0.0 { (v, 1.0) } else { (0.0, v) };
                        let Some(first) = mv.nearest_in(plo, phi) else {
                            continue;
                        };
                        let run = if d == favourable {
                            mv.run_from(first, d)
                        } else {
                            None
                        };
                        let opt = value_option(first, 0.0, run);
                        if first == v {
                            if opt.extension.is_some() && offer(0, true) {
                                ws.push_option(opt);
                                stay_in_run = true;
                            }
                        } else {
                            ws.push_option(opt);
                        }
                    }
                }
                if !stay_in_run && offer(0, true) {
                    ws.push_option(value_option(v, 0.0, None));
                }
                return Ok(own);
            }
            // From a special state into the value range: no direction applies.
            if !offer(0, false) {
                return Ok(own);
            }
            let d = if a > 0.0 { 1.0 } else { -1.0 };
            match grid {
                None => {
                    let room = if a > 0.0 { ub - v } else { v - lb };
                    let run = (a != 0.0).then_some((d, room, false));
                    ws.push_option(value_option(v, w_own, run));
                }
                Some((_, _, k_max)) if k_max < 0 => {}
                Some((base_raw, g_raw, k_max)) => {
                    let (b, g) = ((base_raw - lower) / span, g_raw / span);
                    let km = k_max as f64;
                    // Grid points either side of the anchor.
                    let k_up = ((v - b) / g - 1e-9).ceil().clamp(0.0, km);
                    let k_down = ((v - b) / g + 1e-9).floor().clamp(0.0, km);
                    let at = |k: f64| b + g * k;
                    if a > 0.0 {
                        ws.push_option(value_option(at(k_up), w_own, Some((g, km - k_up, true))));
                        if k_down < k_up {
                            ws.push_option(value_option(at(k_down), w_own, None));
                        }
                    } else if a < 0.0 {
                        ws.push_option(value_option(at(k_down), w_own, Some((-g, k_down, true))));
                        if k_up > k_down {
                            ws.push_option(value_option(at(k_up), w_own, None));
                        }
                    } else {
                        ws.push_option(value_option(at(k_down), w_own, None));
                        if k_up > k_down {
                            ws.push_option(value_option(at(k_up), w_own, None));
                        }
                    }
                }
            }
            Ok(own)
        }
    }
}

/// Which endings of feature `i` Russell's fixes (see [`Fix`]) and the schema's
/// transition rules allow; shared by the linear and the scorecard menus.
struct Offer<'a> {
    schema: &'a Schema,
    fixes: &'a [Fix],
    i: usize,
    s_f: usize,
    stay_only: bool,
    value_only: bool,
    frozen: bool,
}

impl<'a> Offer<'a> {
    fn new(schema: &'a Schema, fixes: &'a [Fix], i: usize, s_f: usize) -> Offer<'a> {
        let mut o = Offer {
            schema,
            fixes,
            i,
            s_f,
            stay_only: false,
            value_only: false,
            frozen: false,
        };
        for fix in fixes {
            match *fix {
                Fix::Stay { feature } if feature == i => o.stay_only = true,
                Fix::ValueRange { feature } if feature == i => o.value_only = true,
                Fix::Freeze { feature } if feature == i => o.frozen = true,
                _ => {}
            }
        }
        o
    }

    /// Whether an option ending in state `s` may be offered (`is_stay`: the
    /// factual itself).
    fn allows(&self, s: usize, is_stay: bool) -> bool {
        let forbidden = self.fixes.iter().any(|x| {
            *x == Fix::Forbid {
                feature: self.i,
                state: s,
            }
        });
        !forbidden
            && (!self.value_only || s == 0)
            && (!self.stay_only || is_stay)
            && (!self.frozen || is_stay || s != 0)
            && (is_stay || self.schema.transition_allowed(self.i, self.s_f, s))
    }
}

/// The slots a contiguous feature's value may move to (before a scorecard's
/// bins cut them), as the program's polytope has them (`program.rs`
/// `add_feature`).
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// Any slot in `[lo, hi]` (a real-valued feature).
    Interval { lo: f64, hi: f64 },
    /// `v + unit·m` for whole `m ∈ [m_lo, m_hi]` (a factual on its grid, in range).
    Steps { unit: f64, m_lo: f64, m_hi: f64 },
    /// `b + g·k` for whole `k ∈ [0, k_max]` (from a special state, or from a
    /// value outside the actionable range, into the range's grid points).
    Grid { b: f64, g: f64, k_max: f64 },
}

/// Tolerance of the whole-number roundings of grid positions.
const GRID_TOL: f64 = 1e-9;

impl Reach {
    /// The point of `[lo, hi]` (a bin's slot interval, see [`bin_slot_interval`])
    /// the value can reach nearest the anchor `v`, if any.
    fn nearest_in(&self, v: f64, lo: f64, hi: f64) -> Option<f64> {
        let c = match *self {
            Reach::Interval { lo: a, hi: b } => {
                let (p, q) = (a.max(lo), b.min(hi));
                if p > q {
                    return None;
                }
                v.clamp(p, q)
            }
            Reach::Steps { unit, m_lo, m_hi } => {
                let p = m_lo.max(((lo - v) / unit - GRID_TOL).ceil());
                let q = m_hi.min(((hi - v) / unit + GRID_TOL).floor());
                if p > q {
                    return None;
                }
                v + unit * 0.0f64.clamp(p, q)
            }
            Reach::Grid { b, g, k_max } => {
                let p = ((lo - b) / g - GRID_TOL).ceil().max(0.0);
                let q = ((hi - b) / g + GRID_TOL).floor().min(k_max);
                if p > q {
                    return None;
                }
                let t = (v - b) / g;
                let (k1, k2) = (t.floor().clamp(p, q), t.ceil().clamp(p, q));
                let (c1, c2) = (b + g * k1, b + g * k2);
                if (c1 - v).abs() <= (c2 - v).abs() {
                    c1
                } else {
                    c2
                }
            }
        };
        // As the program reads its slot back (`Program::encoded`): within
        // [0, 1] and within the chosen bin.
        Some(c.clamp(0.0, 1.0).clamp(lo, hi))
    }
}

/// Where the value of contiguous feature `i` may move (before a model's bins
/// or cells cut it), as the program's polytope has it (`program.rs`
/// `add_feature`): the [`Reach`] of the grid ([`Schema::grid_points`]) within
/// the move range `(lo, hi)` (raw; `(lb, ub)` as slots) and the direction,
/// less the band the minimum change ([`Schema::min_change`]) excludes around
/// a factual value. `v` is the anchor slot (the factual's, or the clamped
/// median from a special state); `None` when the value cannot move: from
/// outside the range away from it, or no grid point to move to.
#[allow(clippy::too_many_arguments)]
fn value_moves(
    schema: &Schema,
    i: usize,
    factual: f64,
    v: f64,
    (lb, ub): (f64, f64),
    (lo, hi): (f64, f64),
    up_ok: bool,
    down_ok: bool,
) -> Option<Moves> {
    let f = &schema.features[i];
    let FeatureKind::Contiguous { lower, upper, .. } = &f.kind else {
        return None;
    };
    let s_f = f.state_of(factual).ok()?;
    let span = upper - lower;
    let degenerate = span <= 0.0;
    let outside = s_f == 0 && (v < lb - 1e-12 || v > ub + 1e-12);
    if outside && !(if v < lb { up_ok } else { down_ok }) {
        return None;
    }
    let in_range = s_f == 0 && !outside;
    // Raw bounds cut at the factual by the direction (in range only).
    let (lo_d, hi_d) = if in_range {
        (
            if down_ok { lo } else { factual.max(lo) },
            if up_ok { hi } else { factual.min(hi) },
        )
    } else {
        (lo, hi)
    };
    let grid = if degenerate {
        None
    } else {
        schema.grid_points(i, lo_d, hi_d)
    };
    let on_grid = schema.on_value_grid(i, factual);
    let reach = match grid {
        None if in_range => Reach::Interval {
            lo: if down_ok { lb.min(v) } else { v },
            hi: if up_ok { ub.max(v) } else { v },
        },
        None => Reach::Interval { lo: lb, hi: ub },
        Some((_, g_raw, _)) if in_range && on_grid => {
            let unit = g_raw / span;
            let steps = |room: f64| (room.max(0.0) / unit + 1e-9).floor();
            Reach::Steps {
                unit,
                m_lo: if down_ok { -steps(v - lb) } else { 0.0 },
                m_hi: if up_ok { steps(ub - v) } else { 0.0 },
            }
        }
        Some((_, _, k_max)) if k_max < 0 => return None,
        Some((base_raw, g_raw, k_max)) => Reach::Grid {
            b: (base_raw - lower) / span,
            g: g_raw / span,
            k_max: k_max as f64,
        },
    };
    let band = if s_f == 0 && !degenerate {
        schema.min_change(i) / span
    } else {
        0.0
    };
    Some(Moves {
        reach,
        v,
        band,
        outside: outside || (s_f == 0 && !on_grid),
    })
}

/// A [`Reach`] seen from the anchor `v`, less the open band `(v − band, v +
/// band)` the minimum change excludes (`band = 0`: nothing excluded).
#[derive(Debug, Clone, Copy)]
struct Moves {
    reach: Reach,
    v: f64,
    band: f64,
    /// The factual value is not a point of the reach (outside the
    /// actionable range, or off the advice grid): staying is separate.
    outside: bool,
}

impl Moves {
    /// The reachable point of `[lo, hi]` nearest the anchor, outside the band.
    fn nearest_in(&self, lo: f64, hi: f64) -> Option<f64> {
        let near = |lo: f64, hi: f64| {
            if lo > hi {
                None
            } else {
                self.reach.nearest_in(self.v, lo, hi)
            }
        };
        if self.band <= 0.0 {
            return near(lo, hi);
        }
        let below = near(lo, hi.min(self.v - self.band));
        let above = near(lo.max(self.v + self.band), hi);
        match (below, above) {
            (Some(b), Some(a)) => Some(if self.v - b <= a - self.v { b } else { a }),
            (b, a) => b.or(a),
        }
    }

    /// The run from reachable point `first` to the far end of the reach in
    /// direction `d` (±1): `(slot per unit, units, whole)`, `None` when
    /// `first` is that end.
    fn run_from(&self, first: f64, d: f64) -> Option<(f64, f64, bool)> {
        let (step, end, whole) = match self.reach {
            Reach::Interval { lo, hi } => (1.0, if d > 0.0 { hi } else { lo }, false),
            Reach::Steps { unit, m_lo, m_hi } => (
                unit,
                self.v + unit * if d > 0.0 { m_hi } else { m_lo },
                true,
            ),
            Reach::Grid { b, g, k_max } => (g, if d > 0.0 { b + g * k_max } else { b }, true),
        };
        let room = (end - first) * d;
        let units = if whole {
            (room / step + GRID_TOL).floor()
        } else {
            room
        };
        (units > 0.0).then_some((d * step, units, whole))
    }
}

/// Where a piecewise-constant model's menu of one feature takes its pieces.
#[derive(Debug, Clone, Copy)]
pub(super) enum Pieces<'a> {
    /// A scorecard's characteristic (`None`: the card does not score the
    /// feature, 0 points everywhere).
    Scorecard(Option<&'a Compiled>),
    /// A tree ensemble's cells of a contiguous feature's value range, as slot
    /// intervals (empty for a categorical feature). Every option is kept.
    Cells(&'a [(f64, f64)]),
}

/// Pushes feature `i`'s menu for a piecewise-constant model: a points
/// scorecard (`Pieces::Scorecard`) or a tree ensemble's cells
/// (`Pieces::Cells`).
///
/// The options are the program's feasible endings (`program.rs`
/// `build_scorecard`, `trees.rs`), one point per choice, since the model is
/// constant on a bin or cell:
/// * stay put (cost 0, gain 0), unless a fix forbids it;
/// * each special state or level `j` the transition rules, the direction (a
///   categorical's) and the fixes allow: its points less the factual's, for
///   the indicator weights `W_own + W_j`;
/// * each value bin or cell: the reachable point of it nearest the anchor — the
///   factual value, or the fitted median slot clamped to the actionable range
///   from a special state — within the actionable bounds, the direction and the
///   integer/step grid, an excluded edge kept off as [`bin_slot_interval`]
///   documents; cost `W_own·[from a special state] + W^c·|c − v|`.
///
/// For a scorecard, while staying put is offered, an option that gains nothing
/// is left out: it costs at least as much as staying and scores no more
/// (Russell's fixes never forbid staying put, except the reference code's rule
/// (b), under which every option is kept). For trees every option is kept but
/// the cell point that is the factual value itself (staying put already).
pub(super) fn piecewise_menu(
    ws: &mut Workspace,
    schema: &Schema,
    pieces: Pieces<'_>,
    factual: &[f64],
    i: usize,
    fixes: &[Fix],
) -> Result<()> {
    let (compiled, cells) = match pieces {
        Pieces::Scorecard(c) => (c, None),
        Pieces::Cells(c) => (None, Some(c)),
    };
    let f = &schema.features[i];
    let s_f = f.state_of(factual[i])?;
    let offer = Offer::new(schema, fixes, i, s_f);
    let w_own = schema.state_weight(i, s_f);
    let move_cost = |j: usize| {
        if j == s_f {
            0.0
        } else {
            w_own + schema.state_weight(i, j)
        }
    };
    let (level_points, special_points, values): (
        Option<&[f64]>,
        Option<&[f64]>,
        Option<&ValueBins>,
    ) = match compiled {
        Some(Compiled::Categorical { level_points, .. }) => (Some(level_points), None, None),
        Some(Compiled::Contiguous {
            special_points,
            values,
            ..
        }) => (None, Some(special_points), Some(values)),
        None => (None, None, None),
    };
    // Points of a special state or level (not the value state).
    let state_points = |j: usize| {
        if f.is_contiguous() {
            special_points.map_or(0.0, |p| p[j - 1])
        } else {
            level_points.map_or(0.0, |p| p[j])
        }
    };
    let stay_ok = offer.allows(s_f, true);
    let keep_all = cells.is_some();
    let worth = |gain: f64| keep_all || !stay_ok || gain > 0.0;
    match &f.kind {
        FeatureKind::Categorical { .. } => {
            let own = state_points(s_f);
            if stay_ok {
                ws.push_option(MenuOption {
                    state: s_f,
                    slot: 0.0,
                    gain: 0.0,
                    cost: 0.0,
                    extension: None,
                });
            }
            for j in (0..f.n_states()).filter(|&j| j != s_f) {
                let dir_ok = match f.index_direction() {
                    Direction::IncreaseOnly => j > s_f,
                    Direction::DecreaseOnly => j < s_f,
                    Direction::Any => true,
                };
                let gain = state_points(j) - own;
                if dir_ok && offer.allows(j, false) && worth(gain) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain,
                        cost: move_cost(j),
                        extension: None,
                    });
                }
            }
            Ok(())
        }
        FeatureKind::Contiguous { lower, upper, .. } => {
            let degenerate = upper <= lower;
            let (lo, hi) = schema.move_range(i, factual[i]).unwrap_or((*lower, *upper));
            let (lb, ub) = if degenerate {
                (0.0, 0.0)
            } else {
                (schema.value_to_slot(i, lo), schema.value_to_slot(i, hi))
            };
            let v = match (s_f, degenerate) {
                (0, true) => 0.0,
                (0, false) => schema.value_to_slot(i, factual[i]),
                _ => schema.anchor(i).clamp(lb, ub),
            };
            let own = match (s_f, values) {
                (0, Some(vb)) => vb.points[vb.of_raw(factual[i])],
                (0, None) => 0.0,
                _ => state_points(s_f),
            };
            if stay_ok {
                ws.push_option(MenuOption {
                    state: s_f,
                    slot: if s_f == 0 { v } else { 0.0 },
                    gain: 0.0,
                    cost: 0.0,
                    extension: None,
                });
            }
            for j in (1..f.n_states()).filter(|&j| j != s_f) {
                let gain = state_points(j) - own;
                if offer.allows(j, false) && worth(gain) {
                    ws.push_option(MenuOption {
                        state: j,
                        slot: 0.0,
                        gain,
                        cost: move_cost(j),
                        extension: None,
                    });
                }
            }
            // The value state: where the polytope lets the slot go.
            let a = &f.actionability;
            let movable = if s_f == 0 {
                a.mutable && !offer.frozen && !degenerate && offer.allows(0, false)
            } else {
                offer.allows(0, false)
            };
            if !movable {
                return Ok(());
            }
            let up_ok = s_f != 0 || a.direction != Direction::DecreaseOnly;
            let down_ok = s_f != 0 || a.direction != Direction::IncreaseOnly;
            let Some(moves) =
                value_moves(schema, i, factual[i], v, (lb, ub), (lo, hi), up_ok, down_ok)
            else {
                return Ok(());
            };
            let base = if s_f == 0 { 0.0 } else { w_own };
            let wv = schema.value_weight(i);
            let n_bins = match (cells, values) {
                (Some(c), _) => c.len(),
                (None, Some(vb)) => vb.points.len(),
                (None, None) => 1,
            };
            for k in 0..n_bins {
                let ((blo, bhi), points) = match (cells, values) {
                    (Some(c), _) => (c[k], 0.0),
                    (None, Some(vb)) => (bin_slot_interval(schema, i, vb, k), vb.points[k]),
                    (None, None) => ((0.0, 1.0), 0.0),
                };
                let gain = points - own;
                if !worth(gain) || blo > bhi {
                    continue;
                }
                if let Some(c) = moves.nearest_in(blo, bhi) {
                    if keep_all && stay_ok && s_f == 0 && c == v {
                        continue; // staying put, offered already
                    }
                    ws.push_option(MenuOption {
                        state: 0,
                        slot: c,
                        gain,
                        cost: base + wv * (c - v).abs(),
                        extension: None,
                    });
                }
            }
            Ok(())
        }
    }
}

//! `cfx_schema_builder`: a schema built in code, feature by feature, that
//! becomes an immutable `cfx_schema` (the JSON route is `cfx_schema_from_json`).
//! Mutable and `Box`-backed: use a builder from one thread at a time.

use super::handle::{
    BoxHandle, arc_into_raw, box_free, box_into_raw, box_mut, box_take, enum_in, finite, out_param,
    slice_in, str_in,
};
use super::schema::cfx_schema;
use super::status::{FfiError, FfiResult, cfx_status};
use crate::schema::{
    ChangeLimit, Direction, Feature, FeatureKind, PastUpper, Schema, TimeGrowth, Transition,
    Waiting,
};
use std::ffi::c_char;
use std::sync::Arc;

/// Directions a mutable feature may move in (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_direction {
    /// Up or down.
    Any = 0,
    /// Only up (e.g. age).
    IncreaseOnly = 1,
    /// Only down.
    DecreaseOnly = 2,
}

fn direction_of(v: i32) -> Option<Direction> {
    match v {
        0 => Some(Direction::Any),
        1 => Some(Direction::IncreaseOnly),
        2 => Some(Direction::DecreaseOnly),
        _ => None,
    }
}

/// A schema under construction. Not thread-safe: one thread at a time.
/// `cfx_schema_build` consumes it; otherwise free it with
/// `cfx_schema_builder_free` (any thread, once).
pub struct cfx_schema_builder {
    _private: [u8; 0],
}

/// What a builder holds: the features so far, the waiting action and the cap
/// on features changed, if any.
#[derive(Default)]
pub struct SchemaDraft {
    features: Vec<Feature>,
    waiting: Option<Waiting>,
    max_features_changed: Option<usize>,
}

unsafe impl BoxHandle for cfx_schema_builder {
    type Rust = SchemaDraft;
}

fn last<'a>(b: *mut cfx_schema_builder) -> FfiResult<&'a mut Feature> {
    box_mut(b, "builder")?
        .features
        .last_mut()
        .ok_or_else(|| FfiError::invalid("the builder has no feature yet: add one first"))
}

use super::handle::flag;

/// A new, empty schema builder; `*out_builder` is owned by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_new(
    out_builder: *mut *mut cfx_schema_builder,
) -> cfx_status {
    ffi_boundary! {
        let out = out_param(out_builder, "out_builder")?;
        out.write(box_into_raw(SchemaDraft::default()));
        Ok(())
    }
}

/// Appends a contiguous feature with raw range `[lower, upper]`; `integer`
/// is 1 for whole numbers, 0 otherwise. Names are checked when the schema is
/// built. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_add_contiguous(
    builder: *mut cfx_schema_builder,
    name: *const c_char,
    lower: f64,
    upper: f64,
    integer: i32,
) -> cfx_status {
    ffi_boundary! {
        let name = str_in(name, "name")?;
        let mut f = Feature::contiguous(name, finite(lower, "lower")?, finite(upper, "upper")?);
        if flag(integer, "integer")? {
            f = f.integer();
        }
        box_mut(builder, "builder")?.features.push(f);
        Ok(())
    }
}

/// Appends a categorical feature with `n_levels` level names (UTF-8,
/// NUL-terminated; raw values are level indices). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_add_categorical(
    builder: *mut cfx_schema_builder,
    name: *const c_char,
    levels: *const *const c_char,
    n_levels: usize,
) -> cfx_status {
    ffi_boundary! {
        let name = str_in(name, "name")?;
        let levels = slice_in(levels, n_levels, "levels")?
            .iter()
            .map(|&l| str_in(l, "levels[i]"))
            .collect::<FfiResult<Vec<&str>>>()?;
        box_mut(builder, "builder")?
            .features
            .push(Feature::categorical(name, &levels));
        Ok(())
    }
}

/// Declares a special code of the last added feature, which must be
/// contiguous (e.g. −7 "no delinquency record"). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_add_special_state(
    builder: *mut cfx_schema_builder,
    code: f64,
    label: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let code = finite(code, "code")?;
        let label = str_in(label, "label")?;
        let f = last(builder)?;
        if !matches!(f.kind, FeatureKind::Contiguous { .. }) {
            return Err(FfiError::invalid(format!(
                "feature '{}' is categorical: special states belong to contiguous features",
                f.name
            )));
        }
        let g = f.clone().with_special(code, label);
        *f = g;
        Ok(())
    }
}

/// Sets the actionability of the last added feature: `mutable_` 1 or 0 and a
/// `cfx_direction` value. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_actionability(
    builder: *mut cfx_schema_builder,
    mutable_: i32,
    direction: i32,
) -> cfx_status {
    ffi_boundary! {
        let m = flag(mutable_, "mutable_")?;
        let d = enum_in(direction, "direction", direction_of)?;
        let f = last(builder)?;
        f.actionability.mutable = m;
        f.actionability.direction = d;
        Ok(())
    }
}

fn last_contiguous<'a>(b: *mut cfx_schema_builder, what: &str) -> FfiResult<&'a mut Feature> {
    let f = last(b)?;
    if !f.is_contiguous() {
        return Err(FfiError::invalid(format!(
            "feature '{}' is categorical: {what} belong to contiguous features",
            f.name
        )));
    }
    Ok(f)
}

/// The time growth of the last added feature, which the time-growth setters
/// after `cfx_schema_builder_set_time_growth` refine.
fn last_time_growth<'a>(b: *mut cfx_schema_builder) -> FfiResult<&'a mut TimeGrowth> {
    let f = last(b)?;
    let name = &f.name;
    f.actionability.grows_with_time.as_mut().ok_or_else(|| {
        FfiError::invalid(format!(
            "feature '{name}' does not grow with time: call cfx_schema_builder_set_time_growth first"
        ))
    })
}

/// Sets the actionable bounds of the last added feature, which must be
/// contiguous: the applicant may be advised values in `[lower, upper]` only
/// (raw units, finite, within the feature's range, `lower ≤ upper`; checked
/// when the schema is built). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_actionable_bounds(
    builder: *mut cfx_schema_builder,
    lower: f64,
    upper: f64,
) -> cfx_status {
    ffi_boundary! {
        let lo = finite(lower, "lower")?;
        let hi = finite(upper, "upper")?;
        if lo > hi {
            return Err(FfiError::invalid(format!("lower {lo} exceeds upper {hi}")));
        }
        let f = last_contiguous(builder, "actionable bounds")?;
        f.actionability.lower = Some(lo);
        f.actionability.upper = Some(hi);
        Ok(())
    }
}

/// How a change limit is given (`int32_t` in C).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum cfx_change_limit {
    /// No limit (the value is ignored).
    None = 0,
    /// In the feature's raw units (e.g. 12 months).
    Units = 1,
    /// As a fraction of the applicant's value (e.g. 0.5: half of it).
    Fraction = 2,
}

fn change_limit(kind: i32, value: f64, param: &str) -> FfiResult<Option<ChangeLimit>> {
    let kind = enum_in(kind, param, |k| match k {
        0..=2 => Some(k),
        _ => None,
    })?;
    Ok(match kind {
        1 => Some(ChangeLimit::Units(finite(value, param)?)),
        2 => Some(ChangeLimit::Fraction(finite(value, param)?)),
        _ => None,
    })
}

/// Sets the change limits of the last added feature, relative to the
/// applicant's value: the largest increase and decrease, each with a
/// `cfx_change_limit` kind. Checked when the schema is built (contiguous
/// features only, non-negative). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_change_limits(
    builder: *mut cfx_schema_builder,
    increase_kind: i32,
    max_increase: f64,
    decrease_kind: i32,
    max_decrease: f64,
) -> cfx_status {
    ffi_boundary! {
        let inc = change_limit(increase_kind, max_increase, "max_increase")?;
        let dec = change_limit(decrease_kind, max_decrease, "max_decrease")?;
        let f = last(builder)?;
        f.actionability.max_increase = inc;
        f.actionability.max_decrease = dec;
        Ok(())
    }
}

/// Advises the last added (contiguous) feature on a grid and by a minimum
/// change (issue 43): every value advice moves it to is a whole multiple of
/// `advice_step` (0: no advice grid, the data's own), and a value→value move
/// changes it by at least `min_change` (0: any change); staying put is
/// always allowed. The schema JSON's `advice_step` and `min_change`.
/// `INVALID_ARGUMENT` for a negative or non-finite value, or no contiguous
/// feature added last; the rest (a step off the data's grid, a feature that
/// grows with time) is checked when the schema is built. Not thread-safe
/// (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_advice_grid(
    builder: *mut cfx_schema_builder,
    advice_step: f64,
    min_change: f64,
) -> cfx_status {
    ffi_boundary! {
        for (v, name) in [(advice_step, "advice_step"), (min_change, "min_change")] {
            if !v.is_finite() || v < 0.0 {
                return Err(FfiError::invalid(format!(
                    "{name} must be finite and non-negative (0: none), got {v}"
                )));
            }
        }
        let f = last_contiguous(builder, "advice grids")?;
        f.actionability.advice_step = (advice_step > 0.0).then_some(advice_step);
        f.actionability.min_change = (min_change > 0.0).then_some(min_change);
        Ok(())
    }
}

/// Sets the cost scale of the last added feature (finite, > 0): it multiplies
/// the feature's distance weights, so 2 makes every change of it cost twice
/// as much. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_cost_scale(
    builder: *mut cfx_schema_builder,
    cost_scale: f64,
) -> cfx_status {
    ffi_boundary! {
        let c = finite(cost_scale, "cost_scale")?;
        if c <= 0.0 {
            return Err(FfiError::invalid(format!("cost_scale must be > 0, got {c}")));
        }
        last(builder)?.actionability.cost_scale = c;
        Ok(())
    }
}

/// Declares that the last added feature grows by `per_month` raw units per
/// month of waiting and moves no other way (it becomes immutable to actions);
/// `ends_in` (NULL: none) names the special state it enters past its upper
/// bound. The schema needs a waiting action (`cfx_schema_builder_set_waiting`).
/// Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_time_growth(
    builder: *mut cfx_schema_builder,
    per_month: f64,
    ends_in: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let per_month = finite(per_month, "per_month")?;
        let ends_in = if ends_in.is_null() {
            None
        } else {
            Some(str_in(ends_in, "ends_in")?.to_string())
        };
        let f = last(builder)?;
        let g = f.clone().grows_with_time(TimeGrowth { per_month, ends_in, ..Default::default() });
        *f = g;
        Ok(())
    }
}

/// Closes the last added feature's time window early: once its value would
/// pass `ends_after` (raw units, finite, within the feature's range) it
/// enters the special state its time growth ends in, instead of only past its
/// upper bound — a bureau's window that closes before the data's largest
/// value (HELOC's months since the last inquiry read −7 after 23 months).
/// Call after `cfx_schema_builder_set_time_growth` with a non-NULL `ends_in`
/// (`INVALID_ARGUMENT` when the feature does not grow with time; the range
/// and `ends_in` are checked when the schema is built). Not thread-safe
/// (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_time_growth_ends_after(
    builder: *mut cfx_schema_builder,
    ends_after: f64,
) -> cfx_status {
    ffi_boundary! {
        let t = finite(ends_after, "ends_after")?;
        let g = last_time_growth(builder)?;
        g.ends_after = Some(t);
        Ok(())
    }
}

/// Says what waiting does once the last added feature's value would pass its
/// upper bound: `refuse` 1 refuses such a wait (the applicant may wait only
/// as long as the feature stays within its range; the schema JSON's
/// `"past_upper": "refuse"`), 0 caps the value at the bound (the default).
/// The bound is the data's largest value, not the end of time: a capped
/// value is one the bureau would not report. Call after
/// `cfx_schema_builder_set_time_growth` (`INVALID_ARGUMENT` when the feature
/// does not grow with time, or for a `refuse` other than 0 or 1); refusing
/// together with an `ends_in` state, or on a categorical, is
/// `INVALID_SCHEMA` when the schema is built. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_time_growth_refuse_past_upper(
    builder: *mut cfx_schema_builder,
    refuse: i32,
) -> cfx_status {
    ffi_boundary! {
        let refuse = flag(refuse, "refuse")?;
        let g = last_time_growth(builder)?;
        g.past_upper = if refuse { PastUpper::Refuse } else { PastUpper::Cap };
        Ok(())
    }
}

/// Limits where waiting may lead the last added feature: a wait that would
/// move its value to outside `[low, high]` (raw units) is not advised by any
/// method (the schema JSON's `"advised_range": [low, high]`); a wait that
/// leaves the value unchanged or carries it into its `ends_in` state is not
/// judged by it. A month counter grows whether or not accepted applicants
/// are where it lands; `cfx_plausibility_advise_waits` sets these ranges
/// from the accepted applicants' 1–99% range. Call after
/// `cfx_schema_builder_set_time_growth` (`INVALID_ARGUMENT` when the
/// feature does not grow with time, or for a non-finite bound); `low >
/// high`, or a range on a categorical, is `INVALID_SCHEMA` when the schema is
/// built. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_time_growth_advised_range(
    builder: *mut cfx_schema_builder,
    low: f64,
    high: f64,
) -> cfx_status {
    ffi_boundary! {
        let low = finite(low, "low")?;
        let high = finite(high, "high")?;
        let g = last_time_growth(builder)?;
        g.advised_range = Some((low, high));
        Ok(())
    }
}

/// Declares one duration band of the last added feature, which must be
/// categorical (German credit's "present employment since"): waiting
/// `months` (≥ 1) from the start of band `level` moves the feature to the
/// next level of its order (`cfx_schema_builder_set_level_order`). The
/// feature then moves only by waiting (it becomes immutable to actions);
/// call once per band; a level not declared is never left by waiting. A name
/// that is not a level of the feature is `NOT_FOUND` here; a band without a
/// next level in the order, a level outside the order, 0 months or a schema
/// without a waiting action is `INVALID_SCHEMA` when the schema is built.
/// Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_band_months(
    builder: *mut cfx_schema_builder,
    level: *const c_char,
    months: u32,
) -> cfx_status {
    ffi_boundary! {
        let level = str_in(level, "level")?.to_string();
        let f = last(builder)?;
        let FeatureKind::Categorical { levels } = &f.kind else {
            return Err(FfiError::invalid(format!(
                "feature '{}' is contiguous: duration bands belong to categorical features (a contiguous feature grows per month: cfx_schema_builder_set_time_growth)",
                f.name
            )));
        };
        if !levels.contains(&level) {
            return Err(FfiError::new(
                cfx_status::NotFound,
                format!("feature '{}' has no level '{level}'", f.name),
            ));
        }
        let mut g = f.actionability.grows_with_time.clone().unwrap_or_default();
        g.band_months.insert(level, months);
        let grown = f.clone().grows_with_time(g);
        *f = grown;
        Ok(())
    }
}

/// Caps the features one piece of advice may change by action at `cap`
/// (≥ 1; what waiting moves is not counted): every method honours it, as
/// the schema JSON's `"max_features_changed"`. Without a call there is no
/// cap; 0 is `INVALID_ARGUMENT` (it would forbid every advice). Not
/// thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_max_features_changed(
    builder: *mut cfx_schema_builder,
    cap: usize,
) -> cfx_status {
    ffi_boundary! {
        let draft = box_mut(builder, "builder")?;
        if cap == 0 {
            return Err(FfiError::invalid(
                "max_features_changed must be at least 1 (0 would forbid every advice; for no cap, do not set one)",
            ));
        }
        draft.max_features_changed = Some(cap);
        Ok(())
    }
}

/// Forbids the move from state `from` to state `to` of the last added
/// feature. A state is named `"value"` (a contiguous feature's range), a
/// special state's label or code (`"-9"`), a level name, or `"*"` (any
/// state); an unknown name is `NOT_FOUND` when the schema is built. Call
/// once per forbidden move. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_add_forbidden_transition(
    builder: *mut cfx_schema_builder,
    from: *const c_char,
    to: *const c_char,
) -> cfx_status {
    ffi_boundary! {
        let from = str_in(from, "from")?.to_string();
        let to = str_in(to, "to")?.to_string();
        last(builder)?.actionability.forbidden_transitions.push(Transition { from, to });
        Ok(())
    }
}

/// Orders the levels of the last added feature, which must be categorical:
/// `levels` (`n_levels` names, UTF-8, NUL-terminated) from worst to best, all
/// of its levels or some. With an order, the feature's direction
/// (`cfx_schema_builder_set_actionability`) speaks of it — increase: only to
/// a better listed level — instead of the level index; every method honours
/// it as forbidden transitions. A name that is not a level is
/// `INVALID_SCHEMA` when the schema is built. Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_level_order(
    builder: *mut cfx_schema_builder,
    levels: *const *const c_char,
    n_levels: usize,
) -> cfx_status {
    ffi_boundary! {
        let order = slice_in(levels, n_levels, "levels")?
            .iter()
            .map(|&l| str_in(l, "levels[i]").map(str::to_string))
            .collect::<FfiResult<Vec<String>>>()?;
        let f = last(builder)?;
        if f.is_contiguous() {
            return Err(FfiError::invalid(format!(
                "feature '{}' is contiguous: level orders belong to categorical features",
                f.name
            )));
        }
        f.actionability.level_order = order;
        Ok(())
    }
}

/// Puts the last added feature, which must be contiguous, on the grid
/// `lower + k·step` (`step` finite, > 0; whole for an integer feature, whose
/// lower bound must then be whole too; the upper bound must lie on the grid —
/// checked when the schema is built). Not thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_step(
    builder: *mut cfx_schema_builder,
    step: f64,
) -> cfx_status {
    ffi_boundary! {
        let v = finite(step, "step")?;
        if v <= 0.0 {
            return Err(FfiError::invalid(format!("step must be > 0, got {v}")));
        }
        let f = last_contiguous(builder, "step grids")?;
        if let FeatureKind::Contiguous { step, .. } = &mut f.kind {
            *step = Some(v);
        }
        Ok(())
    }
}

/// Gives the schema a "wait `m` months" action: its cost per month (in the
/// distance's units) and the longest wait, at most 600 months. Not
/// thread-safe (builder).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_set_waiting(
    builder: *mut cfx_schema_builder,
    cost_per_month: f64,
    max_months: u32,
) -> cfx_status {
    ffi_boundary! {
        let cost_per_month = finite(cost_per_month, "cost_per_month")?;
        box_mut(builder, "builder")?.waiting = Some(Waiting { cost_per_month, max_months });
        Ok(())
    }
}

/// Validates the features and turns the builder into an immutable schema
/// (`INVALID_SCHEMA` for duplicate names, empty levels, lower > upper, …).
/// The builder is consumed in every case (unless NULL): do not use or free
/// it afterwards. `*out_schema` is owned by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_build(
    builder: *mut cfx_schema_builder,
    out_schema: *mut *const cfx_schema,
) -> cfx_status {
    ffi_boundary! {
        let draft = box_take(builder, "builder")?;
        let out = out_param(out_schema, "out_schema")?;
        let s = Schema::new_with_waiting(draft.features, draft.waiting)?
            .with_max_features_changed(draft.max_features_changed)?;
        out.write(arc_into_raw(Arc::new(s)));
        Ok(())
    }
}

/// Releases a builder that was not built. NULL is a no-op. Any thread, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cfx_schema_builder_free(builder: *mut cfx_schema_builder) {
    ffi_boundary! { box_free(builder) }
}

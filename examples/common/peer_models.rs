//! What the tree examples (`trees_heloc`, `trees_scale`) share: reading the
//! peer's exported margins (`benches/peers/trees_train.py`), comparing cfx's
//! margins with them, and a median. Included with `#[path]`, not an example.

use cfx::model::TreeEnsemble;
use std::path::Path;

/// The library's own margins of every HELOC row (`row,margin` CSV).
pub fn margins(path: &Path) -> Result<Vec<f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .skip(1)
        .map(|l| {
            l.split_once(',')
                .and_then(|(_, m)| m.parse::<f64>().ok())
                .ok_or_else(|| format!("{}: bad line '{l}'", path.display()))
        })
        .collect()
}

/// How many rows cfx scores within 1e-6 of the library's margin.
pub fn equal_rows(model: &TreeEnsemble, rows: &[Vec<f64>], lib: &[f64]) -> usize {
    rows.iter()
        .zip(lib)
        .filter(|(r, m)| (model.margin_raw(r) - **m).abs() <= 1e-6)
        .count()
}

/// The median (NaN of nothing); sorts `v`.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

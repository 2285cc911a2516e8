//! Fuzzes the uncertainty constructor (`cfx_uncertainty_new`) with arbitrary
//! numbers (NaN, infinities, asymmetric or indefinite covariances, wrong
//! lengths) and, when it accepts, COPA's bounds of one option at ρ = 0:
//! any status but `PANIC`; the dimension is the one given; a usable L* is
//! Cantelli's m²/(m² + s²) (0 when m ≤ 0) and a usable U* lies in [0, 1].
use super::common::{check, f64s, ok, small_numbers, split};
use cfx::ffi::copa::{
    cfx_copa_bounds, cfx_uncertainty, cfx_uncertainty_dim, cfx_uncertainty_free,
    cfx_uncertainty_new,
};

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    let parts = split(data, 3);
    let Some((&shape, _)) = parts[0].split_first() else {
        return;
    };
    let d = (shape % 6) as usize;
    let cov_len = match shape / 64 {
        0 => d * d,
        1 => (d * d).saturating_sub(1),
        2 => d * d + 1,
        _ => d,
    };
    // Raw bytes as numbers when bit 3 of the shape byte is set (NaN,
    // infinities, huge values), moderate ones otherwise.
    let numbers = if shape & 8 != 0 {
        f64s(parts[1])
    } else {
        small_numbers(parts[1])
    };
    let values: Vec<f64> = numbers
        .iter()
        .copied()
        .chain(std::iter::repeat(0.25))
        .take(d + cov_len)
        .collect();
    let (mean, cov) = values.split_at(d);
    unsafe {
        let mut u: *const cfx_uncertainty = std::ptr::null();
        if !ok(
            cfx_uncertainty_new(mean.as_ptr(), d, cov.as_ptr(), cov_len, &mut u),
            "cfx_uncertainty_new",
        ) {
            return;
        }
        let mut dim = 0usize;
        assert!(ok(cfx_uncertainty_dim(u, &mut dim), "dim"));
        assert_eq!(dim, d);
        // d values, so that the call with the wrong dimension d reads inside the buffer too
        let x: Vec<f64> = small_numbers(parts[2])
            .into_iter()
            .chain(std::iter::repeat(1.0))
            .take(d)
            .collect();
        let (mut lo, mut up, mut ls, mut us) = (0.0, 0.0, -1i32, -1i32);
        if ok(
            cfx_copa_bounds(
                u,
                x.as_ptr(),
                1,
                d - 1,
                0.0,
                &mut lo,
                &mut up,
                &mut ls,
                &mut us,
            ),
            "cfx_copa_bounds",
        ) {
            // θ = (intercept, w): the option is (1, x).
            let full: Vec<f64> = std::iter::once(1.0)
                .chain(x[..d - 1].iter().copied())
                .collect();
            let m: f64 = full.iter().zip(mean).map(|(a, b)| a * b).sum();
            let mut s2 = 0.0;
            for i in 0..d {
                for k in 0..d {
                    s2 += full[i] * cov[i * d + k] * full[k];
                }
            }
            if ls <= 1 && m.is_finite() && s2.is_finite() && m.abs() < 1e6 && s2 < 1e12 {
                let cantelli = if m > 0.0 {
                    m * m / (m * m + s2.max(0.0))
                } else {
                    0.0
                };
                assert!(
                    (lo - cantelli).abs() < 1e-4 || s2 < 1e-9,
                    "L* {lo} vs Cantelli {cantelli} (m {m}, s² {s2})"
                );
            }
            if us <= 1 {
                assert!((0.0..=1.0).contains(&up), "U* {up}");
            }
        }
        check(
            cfx_copa_bounds(u, x.as_ptr(), 1, d, 0.0, &mut lo, &mut up, &mut ls, &mut us),
            "wrong dim",
        );
        cfx_uncertainty_free(u);
    }
}

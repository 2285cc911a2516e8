//! Streams 1,000,000 counterfactuals through fixed workspaces and reports the
//! peak resident memory (issue 7: batch memory must not grow with the batch
//! beyond its output). Points are generated block by block (10,000 at a time)
//! and estimated with `Estimator::estimate_batch_into` into one reused output
//! block; block `b` uses seed `seed + b`. Linear model, Gaussian noise,
//! projection path, K = 1,000, HELOC-sized space (57 encoded columns, 23 noisy).
//!
//! `cargo run --release --example robust_batch_memory -- [points] [threads]`
//!
//! Prints the wall time and the CPU time (user + system, all threads) of the
//! stream: on an idle machine with two cores, `-- 100000 1` and `-- 100000 2`
//! give the same results, and the ratio of their wall times is the 1 → 2-core
//! speed-up (the CPU times show the parallel overhead).

use cfx::model::LinearModel;
use cfx::robust::{Estimate, Estimator, NoiseModel};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// User + system CPU time of the whole process (every thread), in seconds.
fn cpu_seconds() -> f64 {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a `rusage` into the buffer we own.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) } == 0;
    if !ok {
        return f64::NAN;
    }
    // SAFETY: getrusage succeeded, so the struct is initialised.
    let u = unsafe { u.assume_init() };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(Ok(1_000_000), |s| s.parse())?;
    let threads: usize = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let d = 57;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let w: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
    let model = LinearModel::new(w, 0.0, 0.5)?;
    let noise = NoiseModel::gaussian(0.01, (0..23).collect())?;
    let est = Estimator::new(noise, 1_000)?;
    let block = 10_000;
    let mut pts = vec![0.0; block * d];
    let mut out = vec![Estimate::default(); block];
    let start = std::time::Instant::now();
    let cpu_start = cpu_seconds();
    let before = peak_rss_kib();
    let (mut done, mut mean_gamma) = (0usize, 0.0);
    let mut b = 0u64;
    while done < n {
        let m = block.min(n - done);
        for v in pts[..m * d].iter_mut() {
            *v = rng.random();
        }
        est.estimate_batch_into(&model, &pts[..m * d], 7 + b, threads, &mut out[..m])?;
        mean_gamma += out[..m].iter().map(|e| e.invalidation.value).sum::<f64>();
        done += m;
        b += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_start;
    println!(
        "{n} counterfactuals, K = 1000, threads {threads}: wall {wall:.2} s, CPU {cpu:.2} s (user + system), mean Γ̃ {:.4}; peak RSS {} KiB before the stream, {} KiB after",
        mean_gamma / n as f64,
        before,
        peak_rss_kib()
    );
    Ok(())
}

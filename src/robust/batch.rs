//! Batch estimation over many points on all cores.
//!
//! Random streams are assigned **per fixed chunk of points**, never per thread:
//! chunk `c` (points `c·BATCH_CHUNK ..`) draws from the base generator
//! (seeded with `seed`) advanced by `c` calls to xoshiro256++'s `jump()`
//! (2¹²⁸ steps each, so streams never overlap). Each thread takes a
//! contiguous range of chunks, so the same seed gives the same bits whatever
//! the thread count. Each thread owns one [`Workspace`]; memory beyond the output is
//! O(threads · d), whatever the batch size.

use super::estimate::{Estimate, Estimator, Workspace};
use crate::error::{Error, Result, check_len};
use crate::model::Model;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Points per random stream.
pub const BATCH_CHUNK: usize = 256;

impl Estimator {
    /// Γ̃ and Θ̃ for each row of `points` (row-major, `n × d`), on `threads`
    /// threads (0 = all available cores). Same `seed` → same bits for any
    /// thread count.
    pub fn estimate_batch<M: Model + ?Sized>(
        &self,
        model: &M,
        points: &[f64],
        seed: u64,
        threads: usize,
    ) -> Result<Vec<Estimate>> {
        let d = model.input_dim();
        if d == 0 || points.len() % d != 0 {
            return Err(Error::InvalidArgument(format!(
                "points must hold whole rows of {d} values, got {} values",
                points.len()
            )));
        }
        let mut out = vec![Estimate::default(); points.len() / d];
        self.estimate_batch_into(model, points, seed, threads, &mut out)?;
        Ok(out)
    }

    /// As [`Estimator::estimate_batch`], writing into a caller-owned output,
    /// so a stream of batches runs in fixed memory.
    pub fn estimate_batch_into<M: Model + ?Sized>(
        &self,
        model: &M,
        points: &[f64],
        seed: u64,
        threads: usize,
        out: &mut [Estimate],
    ) -> Result<()> {
        let d = model.input_dim();
        check_len("batch values", out.len() * d, points.len())?;
        crate::error::check_finite("batch points", points)?;
        self.noise.check_dim(d)?;
        let n_threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let n_chunks = out.len().div_ceil(BATCH_CHUNK);
        let n_threads = n_threads.min(n_chunks).max(1);
        let base = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Thread w takes the contiguous chunks [w·n/T, (w+1)·n/T); chunk c always
        // draws from the base stream jumped c times, whoever runs it.
        let run = |first_chunk: usize, pts: &[f64], out: &mut [Estimate]| -> Result<()> {
            let mut ws = Workspace::new(model, 0);
            let mut stream = base.clone();
            for _ in 0..first_chunk {
                stream.jump();
            }
            for (p, o) in pts.chunks(BATCH_CHUNK * d).zip(out.chunks_mut(BATCH_CHUNK)) {
                ws.set_rng(stream.clone());
                for (x, e) in p.chunks(d).zip(o.iter_mut()) {
                    *e = self.estimate(model, x, &mut ws)?;
                }
                stream.jump();
            }
            Ok(())
        };
        if n_threads == 1 {
            return run(0, points, out);
        }
        std::thread::scope(|s| {
            let mut handles = Vec::with_capacity(n_threads);
            let (mut pts_rest, mut out_rest) = (points, out);
            let mut start = 0;
            for w in 0..n_threads {
                let end = (w + 1) * n_chunks / n_threads;
                let n_pts = ((end - start) * BATCH_CHUNK).min(out_rest.len());
                let (p, pr) = pts_rest.split_at(n_pts * d);
                let (o, or) = std::mem::take(&mut out_rest).split_at_mut(n_pts);
                pts_rest = pr;
                out_rest = or;
                let run = &run;
                let first = start;
                handles.push(crate::workers::spawn(s, move || run(first, p, o)));
                start = end;
            }
            let mut first = Ok(());
            for h in handles {
                // A worker's panic continues here, as it would on one thread.
                let r = crate::workers::join(h);
                if first.is_ok() {
                    first = r;
                }
            }
            first
        })
    }
}

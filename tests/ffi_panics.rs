//! A panic in a batch's worker thread comes back through the C boundary as
//! `CFX_STATUS_PANIC` with its message in the last-error slot, as on one
//! thread, and nothing reaches the process's panic output. One test, in its
//! own process, because panic hooks are process-wide.

use cfx::coherent::{Config, explain_batch};
use cfx::ffi::boundary::run;
use cfx::ffi::status::{FfiResult, cfx_status};
use cfx::model::{LinearModel, Model};
use cfx::robust::{Estimator, NoiseModel};
use cfx::schema::{Feature, Schema};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A model that panics when it scores a row (and, when `no_weights`, when
/// asked for its weights), as a bug in cfx would.
#[derive(Debug)]
struct Broken {
    no_weights: bool,
}

impl Model for Broken {
    fn input_dim(&self) -> usize {
        2
    }
    fn threshold(&self) -> f64 {
        0.5
    }
    fn score_in(&self, _x: &[f64], _scratch: &mut [f64]) -> f64 {
        panic!("broken model scored a row")
    }
    fn score_gradient_in(&self, _x: &[f64], _grad: &mut [f64], _scratch: &mut [f64]) -> f64 {
        panic!("broken model took a gradient")
    }
    fn as_linear(&self) -> Option<&LinearModel> {
        if self.no_weights {
            panic!("broken model asked for its weights")
        }
        None
    }
}

static PRINTED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn worker_panics_are_panic_statuses_and_print_nothing() {
    // The hook the boundary finds (and must not call for its own panics):
    // it stands for the default hook that prints into stderr.
    std::panic::set_hook(Box::new(|info| {
        PRINTED.fetch_add(1, Ordering::SeqCst);
        eprintln!("host hook: {info}");
    }));
    let last = || cfx::ffi::error::last_error().unwrap_or_default();

    // robust batch on two threads
    let est = Estimator::new(NoiseModel::gaussian(0.01, vec![0, 1]).unwrap(), 64).unwrap();
    let points = vec![0.5; 2 * 600];
    let status: cfx_status = run(|| -> FfiResult<()> {
        est.estimate_batch(&Broken { no_weights: false }, &points, 7, 2)?;
        Ok(())
    });
    assert_eq!(status, cfx_status::Panic);
    assert!(last().contains("broken model scored a row"), "{}", last());

    // coherent batch on two threads
    let schema = Schema::new(vec![
        Feature::contiguous("a", 0.0, 1.0),
        Feature::contiguous("b", 0.0, 1.0),
    ])
    .unwrap();
    let rows = vec![vec![0.1, 0.2]; 4];
    let config = Config {
        batch_threads: 2,
        ..Config::default()
    };
    let status: cfx_status = run(|| -> FfiResult<()> {
        explain_batch(&schema, &Broken { no_weights: true }, &rows, &config, false)?;
        Ok(())
    });
    assert_eq!(status, cfx_status::Panic);
    assert!(last().contains("broken model"), "{}", last());

    // and on the calling thread, with the place of the panic
    let status: cfx_status = run(|| -> FfiResult<()> {
        Broken { no_weights: false }.score(&[0.0, 0.0]);
        Ok(())
    });
    assert_eq!(status, cfx_status::Panic);
    assert!(last().contains("ffi_panics.rs:"), "{}", last());

    assert_eq!(
        PRINTED.load(Ordering::SeqCst),
        0,
        "a quiet panic reached the hook"
    );
    // a panic outside any cfx call still goes to the host's hook
    let outside = std::panic::catch_unwind(|| Broken { no_weights: false }.score(&[0.0, 0.0]));
    assert!(outside.is_err());
    assert_eq!(PRINTED.load(Ordering::SeqCst), 1);
    let _ = std::panic::take_hook();
}

//! The sequential (P-DQN) C entry points driven through the public C ABI with
//! a progress callback (an `extern "C"` function, as a C caller would pass).

use cfx::ffi::cfx_status;
use cfx::ffi::data::{
    cfx_dataset, cfx_dataset_free, cfx_dataset_holdout_split, cfx_dataset_load_german,
};
use cfx::ffi::model::{cfx_model, cfx_model_fit_linear, cfx_model_free};
use cfx::ffi::sequential::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

struct Log {
    reports: Vec<(usize, usize)>,
    stop_at: usize,
}

unsafe extern "C" fn on_progress(p: *const cfx_progress, user: *mut c_void) -> bool {
    let (log, p) = unsafe { (&mut *(user as *mut Log), &*p) };
    log.reports.push((p.episodes_done, p.episodes_total));
    assert!((0.0..=1.0).contains(&p.success_rate) && (0.0..=1.0).contains(&p.epsilon));
    p.episodes_done < log.stop_at
}

#[test]
fn progress_callback_reports_and_cancels_through_the_c_abi() {
    unsafe {
        let (mut data, mut train, mut test): (
            *const cfx_dataset,
            *const cfx_dataset,
            *const cfx_dataset,
        ) = (null(), null(), null());
        assert_eq!(cfx_dataset_load_german(null(), &mut data), cfx_status::Ok);
        assert_eq!(
            cfx_dataset_holdout_split(data, &mut train, &mut test),
            cfx_status::Ok
        );
        let mut model: *const cfx_model = null();
        assert_eq!(cfx_model_fit_linear(train, 1.0, &mut model), cfx_status::Ok);
        // NULL config: every default but 40,000 episodes would be slow, so stop
        // the default run through the callback after its second report (800 episodes).
        let mut log = Log {
            reports: Vec::new(),
            stop_at: 800,
        };
        let mut policy: *const cfx_policy = null();
        let st = cfx_policy_train(
            train,
            model,
            null(),
            cfx_reward_kind::Binary as i32,
            Some(on_progress),
            &mut log as *mut Log as *mut c_void,
            &mut policy,
        );
        assert_eq!(st, cfx_status::Cancelled);
        assert!(policy.is_null(), "no policy is written on cancel");
        assert_eq!(log.reports, vec![(400, 40_000), (800, 40_000)]);
        // NULL callback: no reports, and bad arguments are statuses.
        assert_eq!(
            cfx_policy_train(train, model, null(), 7, None, null_mut(), &mut policy),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_policy_train(null(), model, null(), 0, None, null_mut(), &mut policy),
            cfx_status::NullArgument
        );
        cfx_model_free(model);
        cfx_dataset_free(test);
        cfx_dataset_free(train);
        cfx_dataset_free(data);
    }
}

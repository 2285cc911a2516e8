//! The advice ledger and its re-validation through the public C ABI (issue
//! 28), as a C caller uses them. Oracles: the Rust core — a record's
//! re-validation JSON equals `cfx::revalidate::revalidate`'s, the streamed
//! ledger's output equals `cfx::revalidate::revalidate_ledger`'s bytes and
//! its report equals the core's; the new model's own decision on every
//! advised row. Bad input is a status and a readable message, nothing else.

use cfx::coherent::Config;
use cfx::ffi::cfx_status;
use cfx::ffi::coherent::*;
use cfx::ffi::config::*;
use cfx::ffi::data::*;
use cfx::ffi::error::cfx_last_error_length;
use cfx::ffi::model::{
    cfx_model, cfx_model_fit_linear, cfx_model_free, cfx_model_from_json, cfx_model_to_json,
};
use cfx::ffi::revalidate::*;
use cfx::ffi::schema::{cfx_schema, cfx_schema_free, cfx_schema_from_json, cfx_schema_to_json};
use cfx::model::{AnyModel, Model};
use cfx::revalidate::{LedgerRecord, RevalidateOptions, revalidate, revalidate_ledger};
use cfx::schema::Schema;
use std::ffi::{CString, c_char};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cfx-ffi-revalidate-{}-{name}", std::process::id()))
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// A string through the buffer protocol: query the length, then copy.
fn string_of(f: impl Fn(*mut c_char, usize, *mut usize) -> cfx_status) -> String {
    let mut n = 0usize;
    assert_eq!(f(null_mut(), 0, &mut n), cfx_status::BufferTooSmall);
    let mut buf = vec![0 as c_char; n];
    let mut m = 0usize;
    assert_eq!(f(buf.as_mut_ptr(), n, &mut m), cfx_status::Ok);
    assert_eq!(m, n);
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

/// The status of a call and, when it failed, its last-error message.
fn status_of(f: impl Fn(*mut c_char, usize, *mut usize) -> cfx_status) -> (cfx_status, String) {
    let mut buf = vec![0 as c_char; 1 << 16];
    let mut n = 0usize;
    let st = f(buf.as_mut_ptr(), buf.len(), &mut n);
    (st, last_error())
}

fn last_error() -> String {
    let n = cfx_last_error_length();
    if n == 0 {
        return String::new();
    }
    let mut buf = vec![0 as c_char; n];
    unsafe { cfx::ffi::error::cfx_last_error_message(buf.as_mut_ptr(), n) };
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

/// The German schema and data, model A fitted on the training part (C = 1),
/// model B the same with its intercept lowered by 0.4 (promises issued
/// near A's boundary break), model C fitted with C = 0.05 (some break), the
/// Rust copies of the schema and models, and the held-out rows.
struct Inputs {
    data: *const cfx_dataset,
    train: *const cfx_dataset,
    test: *const cfx_dataset,
    schema: *const cfx_schema,
    models: [*const cfx_model; 3],
    rust_schema: Schema,
    rust_models: Vec<AnyModel>,
}

impl Drop for Inputs {
    fn drop(&mut self) {
        unsafe {
            cfx_schema_free(self.schema);
            for m in self.models {
                cfx_model_free(m);
            }
            cfx_dataset_free(self.test);
            cfx_dataset_free(self.train);
            cfx_dataset_free(self.data);
        }
    }
}

fn inputs() -> Inputs {
    unsafe {
        let (mut data, mut train, mut test) = (null(), null(), null());
        assert_eq!(cfx_dataset_load_german(null(), &mut data), cfx_status::Ok);
        assert_eq!(
            cfx_dataset_holdout_split(data, &mut train, &mut test),
            cfx_status::Ok
        );
        let mut schema = null();
        assert_eq!(cfx_dataset_schema(data, &mut schema), cfx_status::Ok);
        let (mut a, mut soft) = (null(), null());
        assert_eq!(cfx_model_fit_linear(train, 1.0, &mut a), cfx_status::Ok);
        assert_eq!(cfx_model_fit_linear(train, 0.05, &mut soft), cfx_status::Ok);
        let schema_json = string_of(|b, n, o| cfx_schema_to_json(schema, b, n, o));
        let rust_schema = Schema::from_json(&schema_json).unwrap();
        let a_json = string_of(|b, n, o| cfx_model_to_json(a, b, n, o));
        let mut v: serde_json::Value = serde_json::from_str(&a_json).unwrap();
        let bias = v["bias"]
            .as_f64()
            .unwrap_or_else(|| panic!("no bias in {a_json}"));
        v["bias"] = (bias - 0.4).into();
        let mut shifted = null();
        let shifted_json = c(&v.to_string());
        assert_eq!(
            cfx_model_from_json(schema, shifted_json.as_ptr(), &mut shifted),
            cfx_status::Ok,
            "{}",
            last_error()
        );
        let models = [a, shifted, soft];
        let rust_models = models
            .iter()
            .map(|&m| {
                let j = string_of(|b, n, o| cfx_model_to_json(m, b, n, o));
                AnyModel::from_json(&j, &rust_schema).unwrap()
            })
            .collect();
        Inputs {
            data,
            train,
            test,
            schema,
            models,
            rust_schema,
            rust_models,
        }
    }
}

/// Explains the first `n` declined held-out applicants under model A through
/// C and writes their ledger lines (with a robust version of every third,
/// groups "even"/"odd").
fn issue(inp: &Inputs, n: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let a = &inp.rust_models[0];
    let mut robust_cfg = null_mut();
    let mut robust = null();
    unsafe {
        assert_eq!(cfx_config_builder_new(&mut robust_cfg), cfx_status::Ok);
        assert_eq!(
            cfx_config_builder_set_robust_advice(robust_cfg, 0.01, 0.2),
            cfx_status::Ok
        );
        assert_eq!(cfx_config_build(robust_cfg, &mut robust), cfx_status::Ok);
    }
    let mut row = vec![0.0; inp.rust_schema.n_features()];
    let mut index = 0usize;
    while lines.len() < n {
        let mut len = 0;
        let st = unsafe { cfx_dataset_row(inp.test, index, row.as_mut_ptr(), row.len(), &mut len) };
        assert_eq!(st, cfx_status::Ok, "ran out of held-out rows");
        index += 1;
        if a.accepts(&inp.rust_schema.encode(&row).unwrap()) {
            continue;
        }
        let k = lines.len();
        unsafe {
            let mut r = null();
            let st = cfx_coherent_explain(
                inp.schema,
                inp.models[0],
                null(),
                row.as_ptr(),
                row.len(),
                &mut r,
            );
            assert_eq!(st, cfx_status::Ok, "{}", last_error());
            let mut rr = null();
            if k % 3 == 0 {
                let st = cfx_coherent_explain(
                    inp.schema,
                    inp.models[0],
                    robust,
                    row.as_ptr(),
                    row.len(),
                    &mut rr,
                );
                assert_eq!(st, cfx_status::Ok, "{}", last_error());
            }
            let id = c(&format!("app-{k}"));
            let issued = c("2026-12-02");
            let group = c(if k % 2 == 0 { "even" } else { "odd" });
            let line = string_of(|b, cap, o| {
                cfx_ledger_record_from_coherent_result(
                    r,
                    rr,
                    id.as_ptr(),
                    issued.as_ptr(),
                    group.as_ptr(),
                    b,
                    cap,
                    o,
                )
            });
            cfx_coherent_result_free(r);
            cfx_coherent_result_free(rr);
            lines.push(line);
        }
    }
    unsafe { cfx_config_free(robust) };
    lines
}

#[test]
fn records_and_ledgers_through_c_equal_the_rust_core() {
    let inp = inputs();
    let lines = issue(&inp, 12);
    // The record is the core's record of the same explanation.
    let first = LedgerRecord::from_json(&lines[0]).unwrap();
    let ex = cfx::coherent::explain(
        &inp.rust_schema,
        &inp.rust_models[0],
        &first.applicant,
        &Config::default(),
    )
    .unwrap();
    let mut expected =
        LedgerRecord::from_explanation(&inp.rust_schema, &inp.rust_models[0], "app-0", &ex)
            .unwrap()
            .unwrap();
    expected.issued = Some("2026-12-02".into());
    expected.group = Some("even".into());
    expected.robust_advised = first.robust_advised.clone();
    assert!(first.robust_advised.is_some());
    // With its robust version goes what that version is robust to: the
    // robust config's target (`issue`: σ² = 0.01, γ = 0.2, the reals).
    expected.robustness = Some(cfx::coherent::Robustness {
        sigma2: 0.01,
        invalidation_target: 0.2,
        box_kind: cfx::coherent::BoxKind::Reals,
    });
    assert_eq!(first, expected);
    let second = LedgerRecord::from_json(&lines[1]).unwrap();
    assert!(second.robust_advised.is_none() && second.robustness.is_none());

    let ledger = temp("ledger.jsonl");
    std::fs::write(&ledger, lines.join("\n") + "\n").unwrap();
    let mut broken_seen = [0usize; 3];
    for (mi, (&m, rm)) in inp.models.iter().zip(&inp.rust_models).enumerate() {
        // One record at a time: the bytes of the core's re-validation.
        let mut broken = 0;
        for line in &lines {
            let l = c(line);
            let got = string_of(|b, cap, o| unsafe {
                cfx_revalidate_record(inp.schema, m, null(), l.as_ptr(), b, cap, o)
            });
            let rec = LedgerRecord::from_json(line).unwrap();
            let want = revalidate(&inp.rust_schema, rm, &rec, &Config::default()).unwrap();
            assert_eq!(got, serde_json::to_string(&want).unwrap());
            // Kept means the new model accepts the advised row.
            let accepted = rm.accepts(&inp.rust_schema.encode(&rec.advised).unwrap());
            assert_eq!(got.contains("\"status\":\"kept\""), accepted);
            broken += usize::from(!accepted);
        }
        broken_seen[mi] = broken;
        // The stream: the core's bytes and report, on 1 and 3 threads, chunks of 5.
        let rust_out = temp(&format!("rust-{mi}.jsonl"));
        let cfg = Config {
            batch_threads: 1,
            threads: 1,
            ..Config::default()
        };
        let want = revalidate_ledger(
            &inp.rust_schema,
            rm,
            &ledger,
            &rust_out,
            &cfg,
            &RevalidateOptions {
                chunk_rows: 5,
                ..RevalidateOptions::default()
            },
        )
        .unwrap();
        assert_eq!(want.broken, broken);
        for threads in [1, 3] {
            let out = temp(&format!("c-{mi}-{threads}.jsonl"));
            let (i, o) = (c(ledger.to_str().unwrap()), c(out.to_str().unwrap()));
            let mut report = null();
            let st = unsafe {
                cfx_revalidate_ledger(
                    inp.schema,
                    m,
                    null(),
                    i.as_ptr(),
                    o.as_ptr(),
                    threads,
                    5,
                    &mut report,
                )
            };
            assert_eq!(st, cfx_status::Ok, "{}", last_error());
            assert_eq!(
                std::fs::read(&out).unwrap(),
                std::fs::read(&rust_out).unwrap()
            );
            let json = string_of(|b, cap, ol| unsafe {
                cfx_deployment_report_to_json(report, b, cap, ol)
            });
            assert_eq!(json, serde_json::to_string(&want).unwrap());
            // The HTML page: the core's bytes, under a given title and the
            // default one (NULL).
            let title = c("German credit: refit <B>");
            let html = string_of(|b, cap, ol| unsafe {
                cfx_deployment_report_to_html(report, title.as_ptr(), b, cap, ol)
            });
            assert_eq!(html, want.to_html("German credit: refit <B>"));
            assert!(html.contains("refit &lt;B&gt;"));
            // Four plots: the ledger holds robust advice.
            assert_eq!(html.matches("<svg").count(), 4);
            let plain = string_of(|b, cap, ol| unsafe {
                cfx_deployment_report_to_html(report, null(), b, cap, ol)
            });
            assert_eq!(
                plain,
                want.to_html(cfx::revalidate::DeploymentReport::DEFAULT_TITLE)
            );
            unsafe { cfx_deployment_report_free(report) };
            std::fs::remove_file(&out).ok();
        }
        std::fs::remove_file(&rust_out).ok();
    }
    // The same model breaks nothing; the lowered intercept breaks the
    // promises issued close to the old boundary (a categorical step may
    // overshoot it by more than the shift); the report says so.
    assert_eq!(broken_seen[0], 0);
    assert!(broken_seen[1] > 0, "{broken_seen:?}");
    std::fs::remove_file(&ledger).ok();
}

#[test]
fn bad_calls_are_statuses_with_messages() {
    let inp = inputs();
    let lines = issue(&inp, 1);
    let line = c(&lines[0]);
    let (s, m) = (inp.schema, inp.models[0]);
    let revalidate_line = |text: &str| {
        let t = c(text);
        status_of(|b, cap, o| unsafe { cfx_revalidate_record(s, m, null(), t.as_ptr(), b, cap, o) })
    };
    // NULLs.
    let (st, msg) = status_of(|b, cap, o| unsafe {
        cfx_revalidate_record(null(), m, null(), line.as_ptr(), b, cap, o)
    });
    assert_eq!(st, cfx_status::NullArgument);
    assert!(msg.contains("schema"), "{msg}");
    let (st, msg) = status_of(|b, cap, o| unsafe {
        cfx_revalidate_record(s, null(), null(), line.as_ptr(), b, cap, o)
    });
    assert_eq!(
        (st, msg.contains("new_model")),
        (cfx_status::NullArgument, true),
        "{msg}"
    );
    let (st, _) =
        status_of(|b, cap, o| unsafe { cfx_revalidate_record(s, m, null(), null(), b, cap, o) });
    assert_eq!(st, cfx_status::NullArgument);
    let (st, _) = status_of(|b, cap, _| unsafe {
        cfx_revalidate_record(s, m, null(), line.as_ptr(), b, cap, null_mut())
    });
    assert_eq!(st, cfx_status::NullArgument);
    let (st, msg) = status_of(|b, cap, o| unsafe {
        cfx_ledger_record_from_coherent_result(
            null(),
            null(),
            c("x").as_ptr(),
            null(),
            null(),
            b,
            cap,
            o,
        )
    });
    assert_eq!(
        (st, msg.contains("result")),
        (cfx_status::NullArgument, true),
        "{msg}"
    );
    // Bad JSON, another format or version, an unknown key.
    let (st, msg) = revalidate_line("{not json");
    assert_eq!(st, cfx_status::FormatError, "{msg}");
    assert!(!msg.is_empty());
    let (st, msg) = revalidate_line(&lines[0].replace("\"cfx-ledger\"", "\"cfx-result\""));
    assert_eq!(st, cfx_status::FormatError);
    assert!(msg.contains("cfx-ledger"), "{msg}");
    let (st, msg) =
        revalidate_line(&lines[0].replace("\"format_version\":1", "\"format_version\":2"));
    assert_eq!(st, cfx_status::FormatError);
    assert!(msg.contains("version"), "{msg}");
    let (st, msg) = revalidate_line(&lines[0].replacen('{', "{\"colour\":1,", 1));
    assert_eq!(st, cfx_status::FormatError);
    assert!(msg.contains("colour"), "{msg}");
    // Another schema's record; rows of the wrong length.
    let mut rec = LedgerRecord::from_json(&lines[0]).unwrap();
    rec.schema = "fnv1a64:0000000000000000".into();
    let (st, msg) = revalidate_line(&rec.to_json());
    assert_eq!(st, cfx_status::InvalidArgument);
    assert!(msg.contains("schema"), "{msg}");
    let mut rec = LedgerRecord::from_json(&lines[0]).unwrap();
    rec.advised.pop();
    let (st, msg) = revalidate_line(&rec.to_json());
    assert_eq!(st, cfx_status::InvalidArgument);
    assert!(msg.contains("advised"), "{msg}");
    // A buffer too small: the needed length, and nothing else.
    let mut n = 0usize;
    let mut small = [0 as c_char; 4];
    let st = unsafe {
        cfx_revalidate_record(
            s,
            m,
            null(),
            line.as_ptr(),
            small.as_mut_ptr(),
            small.len(),
            &mut n,
        )
    };
    assert_eq!(st, cfx_status::BufferTooSmall);
    assert!(n > 4);

    // Streams: unreadable input, unwritable output, another schema, NULLs,
    // a bad first line; nothing is written and the report is untouched.
    let ledger = temp("bad-ledger.jsonl");
    let out = temp("bad-out.jsonl");
    let stream = |input: &str, output: &str| {
        let (i, o) = (c(input), c(output));
        let mut report = null();
        let st = unsafe {
            cfx_revalidate_ledger(s, m, null(), i.as_ptr(), o.as_ptr(), 1, 0, &mut report)
        };
        assert!(report.is_null());
        (st, last_error())
    };
    let missing = temp("missing.jsonl");
    let (st, msg) = stream(missing.to_str().unwrap(), out.to_str().unwrap());
    assert_eq!(st, cfx_status::IoError);
    assert!(msg.contains("missing.jsonl"), "{msg}");
    assert!(!out.exists());
    std::fs::write(&ledger, lines[0].clone() + "\n").unwrap();
    let (st, msg) = stream(ledger.to_str().unwrap(), "/nonexistent-dir/out.jsonl");
    assert_eq!(st, cfx_status::IoError);
    assert!(msg.contains("out.jsonl"), "{msg}");
    let mut other = LedgerRecord::from_json(&lines[0]).unwrap();
    other.schema = "fnv1a64:0000000000000000".into();
    std::fs::write(&ledger, other.to_json() + "\n").unwrap();
    let (st, msg) = stream(ledger.to_str().unwrap(), out.to_str().unwrap());
    assert_eq!(st, cfx_status::InvalidArgument);
    assert!(msg.contains("schema"), "{msg}");
    assert!(!out.exists());
    std::fs::write(&ledger, "[1, 2]\n").unwrap();
    let (st, _) = stream(ledger.to_str().unwrap(), out.to_str().unwrap());
    assert_eq!(st, cfx_status::FormatError);
    assert!(!out.exists());
    let mut report = null();
    let o = c(out.to_str().unwrap());
    let st = unsafe { cfx_revalidate_ledger(s, m, null(), null(), o.as_ptr(), 1, 0, &mut report) };
    assert_eq!(st, cfx_status::NullArgument);
    let i = c(ledger.to_str().unwrap());
    let st =
        unsafe { cfx_revalidate_ledger(s, m, null(), i.as_ptr(), o.as_ptr(), 1, 0, null_mut()) };
    assert_eq!(st, cfx_status::NullArgument);
    assert!(!out.exists());
    let st = unsafe { cfx_deployment_report_to_html(null(), null(), null_mut(), 0, &mut n) };
    assert_eq!(st, cfx_status::NullArgument);
    assert!(last_error().contains("report"), "{}", last_error());
    let st = unsafe { cfx_deployment_report_to_json(null(), null_mut(), 0, &mut n) };
    assert_eq!(st, cfx_status::NullArgument);
    unsafe { cfx_deployment_report_free(null()) };
    std::fs::remove_file(&ledger).ok();
}

#[test]
fn a_result_without_advice_is_not_found_and_a_mismatched_robust_result_is_refused() {
    // One feature in [0, 10] and a model that accepts only above 100: the
    // applicant is infeasible, so there is no advice to record.
    let schema_json = c(r#"{"format_version": 1, "features": [
        {"name": "income", "kind": "contiguous", "lower": 0.0, "upper": 10.0}]}"#);
    let model_json = c(r#"{"format_version": 1, "kind": "linear", "weights": [1.0],
        "bias": -100.0, "threshold": 0.5}"#);
    unsafe {
        let (mut schema, mut model, mut r) = (null(), null(), null());
        assert_eq!(
            cfx_schema_from_json(schema_json.as_ptr(), &mut schema),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_model_from_json(schema, model_json.as_ptr(), &mut model),
            cfx_status::Ok
        );
        let row = [5.0];
        assert_eq!(
            cfx_coherent_explain(schema, model, null(), row.as_ptr(), 1, &mut r),
            cfx_status::Ok
        );
        let id = c("x");
        let (st, msg) = status_of(|buf, cap, o| {
            cfx_ledger_record_from_coherent_result(
                r,
                null(),
                id.as_ptr(),
                null(),
                null(),
                buf,
                cap,
                o,
            )
        });
        assert_eq!(st, cfx_status::NotFound);
        assert!(msg.contains("no counterfactual"), "{msg}");
        cfx_coherent_result_free(r);
        cfx_model_free(model);
        cfx_schema_free(schema);
    }
    // A robust result of another applicant is refused.
    let inp = inputs();
    let lines = issue(&inp, 2);
    let a = LedgerRecord::from_json(&lines[0]).unwrap();
    let b = LedgerRecord::from_json(&lines[1]).unwrap();
    unsafe {
        let (mut ra, mut rb) = (null(), null());
        assert_eq!(
            cfx_coherent_explain(
                inp.schema,
                inp.models[0],
                null(),
                a.applicant.as_ptr(),
                a.applicant.len(),
                &mut ra
            ),
            cfx_status::Ok
        );
        assert_eq!(
            cfx_coherent_explain(
                inp.schema,
                inp.models[0],
                null(),
                b.applicant.as_ptr(),
                b.applicant.len(),
                &mut rb
            ),
            cfx_status::Ok
        );
        let id = c("x");
        let (st, msg) = status_of(|buf, cap, o| {
            cfx_ledger_record_from_coherent_result(ra, rb, id.as_ptr(), null(), null(), buf, cap, o)
        });
        assert_eq!(st, cfx_status::InvalidArgument);
        assert!(msg.contains("another applicant"), "{msg}");
        // The same result as its own robust version is accepted.
        let line = string_of(|buf, cap, o| {
            cfx_ledger_record_from_coherent_result(ra, ra, id.as_ptr(), null(), null(), buf, cap, o)
        });
        let rec = LedgerRecord::from_json(&line).unwrap();
        assert_eq!(rec.robust_advised.as_ref(), Some(&rec.advised));
        cfx_coherent_result_free(ra);
        cfx_coherent_result_free(rb);
    }
}

#[test]
fn waiting_advice_is_recorded_with_the_row_after_waiting() {
    // German credit under its advice preset, where age changes only by
    // waiting: the record equals the core's record of the same advice, and
    // the same model keeps the promise.
    let inp = inputs();
    let a = &inp.rust_models[0];
    let mut preset = null();
    let st =
        unsafe { cfx::ffi::schema::cfx_schema_advice_preset(inp.schema, 0, 0.05, &mut preset) };
    assert_eq!(st, cfx_status::Ok, "{}", last_error());
    let rust_preset = Schema::from_json(&string_of(|b, n, o| unsafe {
        cfx_schema_to_json(preset, b, n, o)
    }))
    .unwrap();
    let lines = issue(&inp, 3);
    let mut recorded = 0;
    for line in &lines {
        let applicant = LedgerRecord::from_json(line).unwrap().applicant;
        let mut advice = null();
        let st = unsafe {
            cfx::ffi::waiting_advice::cfx_coherent_explain_with_waiting(
                preset,
                inp.models[0],
                null(),
                applicant.as_ptr(),
                applicant.len(),
                &mut advice,
            )
        };
        assert_eq!(st, cfx_status::Ok, "{}", last_error());
        let ex = cfx::coherent::waiting::explain_with_waiting(
            &rust_preset,
            a,
            &applicant,
            &Config::default(),
        )
        .unwrap();
        let id = c("w");
        let got = status_of(|b, cap, o| unsafe {
            cfx_ledger_record_from_waiting_advice(advice, id.as_ptr(), null(), null(), b, cap, o)
        });
        match LedgerRecord::from_waiting(&rust_preset, a, "w", &applicant, &ex).unwrap() {
            Some(want) => {
                assert_eq!(got.0, cfx_status::Ok, "{}", got.1);
                let line = string_of(|b, cap, o| unsafe {
                    cfx_ledger_record_from_waiting_advice(
                        advice,
                        id.as_ptr(),
                        null(),
                        null(),
                        b,
                        cap,
                        o,
                    )
                });
                assert_eq!(LedgerRecord::from_json(&line).unwrap(), want);
                assert!(line.contains("\"kind\":\"waiting\""));
                let l = c(&line);
                let v = string_of(|b, cap, o| unsafe {
                    cfx_revalidate_record(preset, inp.models[0], null(), l.as_ptr(), b, cap, o)
                });
                assert!(v.contains("\"status\":\"kept\""), "{v}");
                recorded += 1;
            }
            None => assert_eq!(got.0, cfx_status::NotFound, "{}", got.1),
        }
        unsafe { cfx::ffi::waiting_advice::cfx_waiting_advice_free(advice) };
    }
    assert!(recorded > 0);
    let (st, msg) = status_of(|b, cap, o| unsafe {
        cfx_ledger_record_from_waiting_advice(null(), c("w").as_ptr(), null(), null(), b, cap, o)
    });
    assert_eq!(st, cfx_status::NullArgument);
    assert!(msg.contains("advice"), "{msg}");
    unsafe { cfx_schema_free(preset) };
}

#[test]
fn diverse_sets_are_recorded_option_by_option_and_reported_as_html() {
    let inp = inputs();
    let a = &inp.rust_models[0];
    let mut row = vec![0.0; inp.rust_schema.n_features()];
    let mut index = 0usize;
    loop {
        let mut len = 0;
        let st = unsafe { cfx_dataset_row(inp.test, index, row.as_mut_ptr(), row.len(), &mut len) };
        assert_eq!(st, cfx_status::Ok, "ran out of held-out rows");
        index += 1;
        if !a.accepts(&inp.rust_schema.encode(&row).unwrap()) {
            break;
        }
    }
    let mut r = null();
    let st = unsafe {
        cfx_coherent_explain_diverse(
            inp.schema,
            inp.models[0],
            null(),
            row.as_ptr(),
            row.len(),
            &mut r,
        )
    };
    assert_eq!(st, cfx_status::Ok, "{}", last_error());
    let mut count = 0usize;
    assert_eq!(
        unsafe { cfx_coherent_result_count(r, &mut count) },
        cfx_status::Ok
    );
    // Oracle: the core's records of the same diverse set.
    let ex = cfx::coherent::explain_diverse(&inp.rust_schema, a, &row, &Config::default()).unwrap();
    let want = LedgerRecord::from_diverse(&inp.rust_schema, a, "app-7", &ex).unwrap();
    assert_eq!(want.len(), count);
    assert!(count > 1, "a diverse set of one: {count}");
    let id = c("app-7");
    let group = c("north");
    let mut lines = Vec::new();
    for (k, expected) in want.iter().enumerate() {
        let line = string_of(|b, cap, o| unsafe {
            cfx_ledger_record_from_coherent_result_at(
                r,
                k,
                null(),
                id.as_ptr(),
                null(),
                group.as_ptr(),
                b,
                cap,
                o,
            )
        });
        let got = LedgerRecord::from_json(&line).unwrap();
        let mut expected = expected.clone();
        expected.group = Some("north".into());
        assert_eq!(got, expected);
        assert_eq!(got.id, format!("app-7/{k}"));
        let kind = if k == 0 { "\"explain\"" } else { "\"diverse\"" };
        assert!(line.contains(&format!("\"kind\":{kind}")), "{line}");
        lines.push(line);
    }
    // k out of range: NOT_FOUND, with the count in the message.
    let (st, msg) = status_of(|b, cap, o| unsafe {
        cfx_ledger_record_from_coherent_result_at(
            r,
            count,
            null(),
            id.as_ptr(),
            null(),
            null(),
            b,
            cap,
            o,
        )
    });
    assert_eq!(st, cfx_status::NotFound);
    assert!(msg.contains(&format!("has {count}")), "{msg}");
    let (st, msg) = status_of(|b, cap, o| unsafe {
        cfx_ledger_record_from_coherent_result_at(
            null(),
            0,
            null(),
            id.as_ptr(),
            null(),
            null(),
            b,
            cap,
            o,
        )
    });
    assert_eq!(st, cfx_status::NullArgument);
    assert!(msg.contains("result"), "{msg}");
    unsafe { cfx_coherent_result_free(r) };

    // The diverse ledger re-validated against the same model: nothing broken,
    // and a page of three plots (no robust advice) with the record count.
    let ledger = temp("diverse.jsonl");
    let out = temp("diverse-out.jsonl");
    std::fs::write(&ledger, lines.join("\n") + "\n").unwrap();
    let (i, o) = (c(ledger.to_str().unwrap()), c(out.to_str().unwrap()));
    let mut report = null();
    let st = unsafe {
        cfx_revalidate_ledger(
            inp.schema,
            inp.models[0],
            null(),
            i.as_ptr(),
            o.as_ptr(),
            1,
            0,
            &mut report,
        )
    };
    assert_eq!(st, cfx_status::Ok, "{}", last_error());
    let html = string_of(|b, cap, ol| unsafe {
        cfx_deployment_report_to_html(report, null(), b, cap, ol)
    });
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(
        html.contains(&format!(
            "<tr><th>promises re-validated</th><td>{count}</td></tr>"
        )),
        "{html}"
    );
    assert!(html.contains("<tr><th>broken</th><td>0 (0.0%)</td></tr>"));
    // A title that is not UTF-8: INVALID_ARGUMENT naming it.
    let bad = [0x66u8, 0xff, 0x00];
    let (st, msg) = status_of(|b, cap, ol| unsafe {
        cfx_deployment_report_to_html(report, bad.as_ptr().cast(), b, cap, ol)
    });
    assert_eq!(st, cfx_status::InvalidArgument);
    assert!(msg.contains("title") && msg.contains("UTF-8"), "{msg}");
    unsafe { cfx_deployment_report_free(report) };
    std::fs::remove_file(&ledger).ok();
    std::fs::remove_file(&out).ok();
}

/// A portfolio run through C under model A (`inputs`): German rows (the
/// bundled file, or a temporary copy of its first `rows`), the label ignored,
/// explained under `config` (null: the default) on `threads` threads into a
/// temporary lines file named after `name`. Dropping it removes the files it
/// wrote.
struct PortfolioRun<'a> {
    inp: &'a Inputs,
    csv: PathBuf,
    csv_c: CString,
    copied_csv: bool,
    lines: PathBuf,
    lines_c: CString,
    counts: cfx::ffi::portfolio::cfx_portfolio_counts,
}

impl<'a> PortfolioRun<'a> {
    fn new(
        inp: &'a Inputs,
        name: &str,
        rows: Option<usize>,
        config: *const cfx_config,
        threads: usize,
    ) -> Self {
        use cfx::ffi::portfolio::{cfx_portfolio_counts, cfx_portfolio_explain};
        let bundled = cfx::data::bundled_german_path();
        let csv = match rows {
            None => bundled,
            Some(n) => {
                let full = std::fs::read_to_string(bundled).unwrap();
                let csv = temp(&format!("{name}.csv"));
                let head: Vec<&str> = full.lines().take(n + 1).collect();
                std::fs::write(&csv, head.join("\n") + "\n").unwrap();
                csv
            }
        };
        let lines = temp(&format!("{name}.jsonl"));
        let (csv_c, lines_c) = (c(csv.to_str().unwrap()), c(lines.to_str().unwrap()));
        let label = c("creditability");
        let ignore = [label.as_ptr()];
        let mut counts = cfx_portfolio_counts::default();
        let st = unsafe {
            cfx_portfolio_explain(
                inp.schema,
                inp.models[0],
                config,
                csv_c.as_ptr(),
                lines_c.as_ptr(),
                ignore.as_ptr(),
                1,
                threads,
                None,
                null_mut(),
                &mut counts,
            )
        };
        assert_eq!(st, cfx_status::Ok, "{}", last_error());
        PortfolioRun {
            inp,
            csv,
            csv_c,
            copied_csv: rows.is_some(),
            lines,
            lines_c,
            counts,
        }
    }

    /// `cfx_ledger_from_portfolio` on the run's rows and lines under model
    /// A, the ledger written to `ledger` under `options` (JSON, or null): its
    /// status and the last-error message.
    fn keep(
        &self,
        ledger: &Path,
        options: *const c_char,
        out_records: *mut usize,
    ) -> (cfx_status, String) {
        let ledger_c = c(ledger.to_str().unwrap());
        let st = unsafe {
            cfx_ledger_from_portfolio(
                self.inp.schema,
                self.inp.models[0],
                self.csv_c.as_ptr(),
                self.lines_c.as_ptr(),
                ledger_c.as_ptr(),
                options,
                out_records,
            )
        };
        (st, last_error())
    }
}

impl Drop for PortfolioRun<'_> {
    fn drop(&mut self) {
        std::fs::remove_file(&self.lines).ok();
        if self.copied_csv {
            std::fs::remove_file(&self.csv).ok();
        }
    }
}

/// A portfolio run through C kept as a ledger through C: the same bytes as the
/// Rust core's conversion, one record per declined applicant with advice, each
/// kept by the same model; COPA versions through C equal the core's
/// `copa_corrected_advice`; bad input is a status and a message, no ledger.
#[test]
fn portfolio_lines_and_copa_versions_through_c_equal_the_rust_core() {
    use cfx::ffi::copa::{cfx_uncertainty_free, cfx_uncertainty_from_dataset};
    use cfx::plan::{CorrectionConfig, EnsembleConfig, ModelUncertainty};
    use cfx::revalidate::{PortfolioLedgerOptions, copa_corrected_advice, ledger_from_portfolio};
    let inp = inputs();
    let run = PortfolioRun::new(&inp, "book", None, null(), 2);
    let (ledger, core) = (temp("book-ledger.jsonl"), temp("core.jsonl"));
    let options = c(r#"{"ignore_columns": ["creditability"], "issued": "2026-12-02"}"#);
    let mut records = 0usize;
    let (st, msg) = run.keep(&ledger, options.as_ptr(), &mut records);
    assert_eq!(st, cfx_status::Ok, "{msg}");
    assert_eq!(records, run.counts.with_recourse);
    assert!(records >= 100, "{records} records");
    let expected = ledger_from_portfolio(
        &inp.rust_schema,
        &inp.rust_models[0],
        &run.csv,
        &run.lines,
        &core,
        &PortfolioLedgerOptions {
            ignore_columns: vec!["creditability".into()],
            issued: Some("2026-12-02".into()),
            ..PortfolioLedgerOptions::default()
        },
    )
    .unwrap();
    assert_eq!(expected.records, records);
    let text = std::fs::read_to_string(&ledger).unwrap();
    assert_eq!(text, std::fs::read_to_string(&core).unwrap());
    let report = revalidate_ledger(
        &inp.rust_schema,
        &inp.rust_models[0],
        &ledger,
        &temp("book-revalidated.jsonl"),
        &Config::default(),
        &RevalidateOptions::default(),
    )
    .unwrap();
    assert_eq!((report.records, report.broken), (records, 0));

    // Bad input: a status, a message, no ledger.
    let other = temp("book-other.jsonl");
    let call = |options: *const c_char, out: *mut usize| run.keep(&other, options, out);
    let mut n = 7usize;
    let unknown = c(r#"{"ignore_columns": ["creditability"], "id": "x"}"#);
    let (st, msg) = call(unknown.as_ptr(), &mut n);
    assert_eq!(st, cfx_status::FormatError, "{msg}");
    assert!(msg.contains("unknown field `id`"), "{msg}");
    let (st, msg) = call(null(), &mut n);
    assert_eq!(st, cfx_status::DataError, "{msg}");
    assert!(msg.contains("creditability"), "{msg}");
    // The run's robustness target: refused with an unknown key or when it is
    // not one; on this plain run's lines (no Γ) it adds nothing.
    let bad_key = c(
        r#"{"ignore_columns": ["creditability"], "robustness": {"sigma2": 0.01, "invalidation_target": 0.1, "radius": 1}}"#,
    );
    let (st, msg) = call(bad_key.as_ptr(), &mut n);
    assert_eq!(st, cfx_status::FormatError, "{msg}");
    assert!(msg.contains("radius"), "{msg}");
    let bad_target = c(
        r#"{"ignore_columns": ["creditability"], "robustness": {"sigma2": 0.01, "invalidation_target": 1.5}}"#,
    );
    let (st, msg) = call(bad_target.as_ptr(), &mut n);
    assert_eq!(st, cfx_status::InvalidArgument, "{msg}");
    assert!(msg.contains("invalidation_target"), "{msg}");
    assert!(!other.exists());
    let target = c(
        r#"{"ignore_columns": ["creditability"], "issued": "2026-12-02", "robustness": {"sigma2": 0.01, "invalidation_target": 0.1}}"#,
    );
    let (st, msg) = call(target.as_ptr(), &mut n);
    assert_eq!(st, cfx_status::Ok, "{msg}");
    assert_eq!(n, records);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), text);
    std::fs::remove_file(&other).unwrap();
    n = 7;
    let (st, _) = call(options.as_ptr(), null_mut());
    assert_eq!(st, cfx_status::NullArgument);
    assert_eq!(n, 7, "out_records written on failure");
    assert!(!other.exists());

    // COPA versions through C equal the core's.
    let mut unc = null();
    assert_eq!(
        unsafe { cfx_uncertainty_from_dataset(inp.train, 50, 3, &mut unc) },
        cfx_status::Ok
    );
    let d = cfx::data::german_credit(&run.csv).unwrap();
    let (train, _) = d.holdout_split();
    let rust_unc = ModelUncertainty::from_ensemble(
        &train.encoded(),
        &train.labels,
        EnsembleConfig {
            refits: 50,
            cov_scale: 1.5,
            seed: 3,
            ..EnsembleConfig::default()
        },
    )
    .unwrap();
    let cfg = CorrectionConfig {
        rho: 0.02,
        delta: 0.2,
        ..CorrectionConfig::default()
    };
    let (mut with, mut without) = (0, 0);
    for line in text.lines().take(15) {
        let rec = LedgerRecord::from_json(line).unwrap();
        let want = copa_corrected_advice(
            &inp.rust_schema,
            &rust_unc,
            &rec.applicant,
            &rec.advised,
            cfg,
        )
        .unwrap();
        let line_c = c(line);
        let add = |b: *mut c_char, cap: usize, o: *mut usize| unsafe {
            cfx_ledger_record_add_copa_version(
                inp.schema,
                unc,
                line_c.as_ptr(),
                0.02,
                0.2,
                b,
                cap,
                o,
            )
        };
        match want {
            Some(row) => {
                let got = LedgerRecord::from_json(&string_of(add)).unwrap();
                let mut expected = rec.clone();
                expected.copa_advised = Some(row);
                assert_eq!(got, expected);
                with += 1;
            }
            None => {
                let (st, msg) = status_of(add);
                assert_eq!(st, cfx_status::NotFound);
                assert!(msg.contains("breaks a rule of the schema"), "{msg}");
                without += 1;
            }
        }
    }
    assert!(with >= 8, "{with} COPA versions, {without} refused");
    let line_c = c(text.lines().next().unwrap());
    let mut other_schema = LedgerRecord::from_json(text.lines().next().unwrap()).unwrap();
    other_schema.schema = "fnv1a64:0000000000000000".into();
    let other_c = c(&other_schema.to_json());
    for (record, rho, want) in [
        (other_c.as_ptr(), 0.02, cfx_status::InvalidArgument),
        (line_c.as_ptr(), f64::NAN, cfx_status::InvalidArgument),
        (null(), 0.02, cfx_status::NullArgument),
    ] {
        let (st, msg) = status_of(|b, cap, o| unsafe {
            cfx_ledger_record_add_copa_version(inp.schema, unc, record, rho, 0.2, b, cap, o)
        });
        assert_eq!(st, want, "{msg}");
        assert!(!msg.is_empty());
    }
    unsafe { cfx_uncertainty_free(unc) };
}

/// A robust portfolio run (the first 40 German applicants, robust advice at
/// σ² = 0.01, γ = 0.2) kept with the run's configuration JSON under
/// `config`: every robust record carries the target the settings name, with
/// `box_kind` `"reachable_values"` when the config's box is reachable values
/// (the conversion reads the target from the config and does not re-check
/// it against the lines, so the reals run's lines serve both); a config
/// without robust advice adds none; `config` with `robustness` is refused.
#[test]
fn a_portfolio_ledger_reads_its_robustness_from_the_config_json() {
    let inp = inputs();
    let ledger = temp("robust-book-ledger.jsonl");
    let config = |robust: Option<i32>| unsafe {
        let mut b = null_mut();
        assert_eq!(cfx_config_builder_new(&mut b), cfx_status::Ok);
        if let Some(kind) = robust {
            assert_eq!(
                cfx_config_builder_set_robust_advice(b, 0.01, 0.2),
                cfx_status::Ok
            );
            assert_eq!(cfx_config_builder_set_robust_box(b, kind), cfx_status::Ok);
        }
        let mut cfg = null();
        assert_eq!(cfx_config_build(b, &mut cfg), cfx_status::Ok);
        let json = string_of(|buf, n, o| cfx_config_to_json(cfg, buf, n, o));
        (cfg, json)
    };
    let (reals, reals_json) = config(Some(cfx_robust_box::Reals as i32));
    let run = PortfolioRun::new(&inp, "robust-book", Some(40), reals, 1);
    assert!(
        run.counts.with_recourse >= 5,
        "{} with recourse",
        run.counts.with_recourse
    );
    let keep = |config_json: &str, extra: &str| {
        let options = c(&format!(
            r#"{{"ignore_columns": ["creditability"], "config": {config_json}{extra}}}"#
        ));
        let mut n = 0usize;
        let (st, msg) = run.keep(&ledger, options.as_ptr(), &mut n);
        (st, msg, n)
    };
    let records = |n: usize| {
        let text = std::fs::read_to_string(&ledger).unwrap();
        let v: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(v.len(), n);
        assert!(v.iter().all(|r| r["kind"] == "robust"), "{text}");
        v
    };
    let (st, msg, n) = keep(&reals_json, "");
    assert_eq!(st, cfx_status::Ok, "{msg}");
    assert_eq!(n, run.counts.with_recourse);
    for r in records(n) {
        assert_eq!(
            r["robustness"],
            serde_json::json!({"sigma2": 0.01, "invalidation_target": 0.2}),
            "{r}"
        );
    }
    let (reach, reach_json) = config(Some(cfx_robust_box::ReachableValues as i32));
    let (st, msg, n) = keep(&reach_json, "");
    assert_eq!(st, cfx_status::Ok, "{msg}");
    for r in records(n) {
        assert_eq!(
            r["robustness"],
            serde_json::json!({"sigma2": 0.01, "invalidation_target": 0.2, "box_kind": "reachable_values"}),
            "{r}"
        );
    }
    let (plain, plain_json) = config(None);
    let (st, msg, n) = keep(&plain_json, "");
    assert_eq!(st, cfx_status::Ok, "{msg}");
    assert!(records(n).iter().all(|r| r.get("robustness").is_none()));
    std::fs::remove_file(&ledger).unwrap();
    let (st, msg, _) = keep(
        &reals_json,
        r#", "robustness": {"sigma2": 0.01, "invalidation_target": 0.2}"#,
    );
    assert_eq!(st, cfx_status::InvalidArgument, "{msg}");
    assert!(
        msg.contains("`robustness`") && msg.contains("`config`"),
        "{msg}"
    );
    let (st, msg, _) = keep(r#"{"robust_advice": {"sigma2": 0.01}}"#, "");
    assert_eq!(st, cfx_status::FormatError, "{msg}");
    assert!(msg.contains("invalidation_target"), "{msg}");
    assert!(!ledger.exists());
    unsafe {
        cfx_config_free(reals);
        cfx_config_free(reach);
        cfx_config_free(plain);
    }
}

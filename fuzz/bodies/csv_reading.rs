//! Fuzzes CSV reading (`cfx_dataset_from_csv`) against the example applicant
//! schema, target column `good`, favourable value `1`: any file gives a
//! status other than `PANIC`; every row of a dataset that loads is a coherent
//! applicant (it encodes, and decodes back to itself value by value) with a
//! 0/1 label.
use super::common::{c_string, close, ok};
use cfx::ffi::data::{
    cfx_dataset, cfx_dataset_free, cfx_dataset_from_csv, cfx_dataset_label, cfx_dataset_n_rows,
    cfx_dataset_row,
};
use cfx::ffi::schema::{cfx_schema, cfx_schema_decode, cfx_schema_encode, cfx_schema_from_json};
use std::sync::OnceLock;

struct Shared(*const cfx_schema);
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

fn schema() -> *const cfx_schema {
    static SCHEMA: OnceLock<Shared> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let json = c_string(include_bytes!(
                "../../examples/c/data/applicant_schema.json"
            ))
            .unwrap();
            let mut s: *const cfx_schema = std::ptr::null();
            assert!(ok(
                unsafe { cfx_schema_from_json(json.as_ptr(), &mut s) },
                "schema"
            ));
            Shared(s)
        })
        .0
}

/// One fuzz input (shared by the libFuzzer target and `tests/fuzz_corpus.rs`).
pub fn run(data: &[u8]) {
    // One file per call: test threads of one process run bodies at once.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("cfx-fuzz-{}-{call}.csv", std::process::id()));
    std::fs::write(&path, data).expect("temporary file");
    let path_c = c_string(path.to_str().unwrap().as_bytes()).unwrap();
    let (target, favourable) = (c_string(b"good").unwrap(), c_string(b"1").unwrap());
    unsafe {
        let mut d: *const cfx_dataset = std::ptr::null();
        let loaded = ok(
            cfx_dataset_from_csv(
                schema(),
                path_c.as_ptr(),
                target.as_ptr(),
                favourable.as_ptr(),
                &mut d,
            ),
            "cfx_dataset_from_csv",
        );
        if loaded {
            let mut n = 0usize;
            assert!(ok(cfx_dataset_n_rows(d, &mut n), "n_rows"));
            for i in 0..n {
                let (mut raw, mut len) = ([0.0f64; 8], 0usize);
                assert!(ok(
                    cfx_dataset_row(d, i, raw.as_mut_ptr(), 8, &mut len),
                    "row"
                ));
                assert_eq!(len, 4);
                let (mut x, mut xl) = ([0.0f64; 16], 0usize);
                assert!(
                    ok(
                        cfx_schema_encode(schema(), raw.as_ptr(), 4, x.as_mut_ptr(), 16, &mut xl),
                        "encode"
                    ),
                    "row {i} of a loaded dataset is incoherent: {:?}",
                    &raw[..4]
                );
                let (mut back, mut bl) = ([0.0f64; 4], 0usize);
                assert!(ok(
                    cfx_schema_decode(schema(), x.as_ptr(), xl, back.as_mut_ptr(), 4, &mut bl),
                    "decode"
                ));
                for k in 0..4 {
                    assert!(
                        close(raw[k], back[k], 1e5),
                        "row {i} value {k}: {} vs {}",
                        raw[k],
                        back[k]
                    );
                }
                let mut y = -1.0;
                assert!(ok(cfx_dataset_label(d, i, &mut y), "label"));
                assert!(y == 0.0 || y == 1.0, "label {y}");
            }
            assert!(!ok(cfx_dataset_label(d, n, &mut 0.0), "label past the end"));
            cfx_dataset_free(d);
        }
    }
    let _ = std::fs::remove_file(&path);
}

//! Data files that cannot be read without guessing are refused with an error
//! naming where: missing values, bad headers, a favourable label no row has,
//! single-class data before any fit; and CSV files with another delimiter or
//! no header are read as the caller says — in Rust and through the C ABI.

use cfx::Error;
use cfx::data::{self, CsvOptions, InferOptions, SpecialCode};
use cfx::ffi::data::*;
use cfx::ffi::model::*;
use cfx::ffi::schema::*;
use cfx::ffi::status::cfx_status;
use cfx::model::{LinearModel, LogisticFit, MlpModel, MlpTraining};
use cfx::plan::{EnsembleConfig, ModelUncertainty};
use cfx::schema::{Feature, Schema};
use std::ffi::CString;
use std::path::PathBuf;
use std::ptr::null;

/// A file in a fresh folder of the system's temporary directory.
fn temp_file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cfx-data-inputs-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn data_error<T: std::fmt::Debug>(r: cfx::Result<T>) -> String {
    match r {
        Err(Error::Data(m)) => m,
        other => panic!("expected a data error, got {other:?}"),
    }
}

fn infer_opts() -> InferOptions {
    InferOptions {
        target: "risk".into(),
        favourable: "good".into(),
        ..Default::default()
    }
}

#[test]
fn missing_value_tokens_are_errors_naming_row_and_column() {
    for token in ["NA", "N/A", "?", "", "nan", "NaN"] {
        let text = format!("amount,housing,risk\n5,own,good\n7,rent,bad\n{token},own,bad\n");
        let t = data::parse_csv(&text).unwrap();
        let m = data_error(data::infer(&t, &infer_opts()));
        assert!(
            m.contains(&format!(
                "data row 3, column 'amount': missing value '{token}'"
            )),
            "{token}: {m}"
        );
        // in a text column too (it would otherwise become a level)
        let text = format!("amount,housing,risk\n5,own,good\n7,{token},bad\n");
        let m = data_error(data::infer(&data::parse_csv(&text).unwrap(), &infer_opts()));
        assert!(m.contains("data row 2, column 'housing'"), "{token}: {m}");
        // and under an existing schema
        let s = Schema::new(vec![
            Feature::contiguous("amount", 0.0, 10.0),
            Feature::categorical("housing", &["own", "rent"]),
        ])
        .unwrap();
        let t = data::parse_csv(&format!("amount,housing\n1,own\n{token},rent\n")).unwrap();
        let m = data_error(data::rows_under_schema(&t, &s));
        assert!(
            m.contains("data row 2, column 'amount': missing value"),
            "{m}"
        );
        // a missing label
        let t = data::parse_csv(&format!("amount,risk\n1,good\n2,{token}\n")).unwrap();
        let m = data_error(data::labels_of(&t, "risk", "good"));
        assert!(m.contains("data row 2, label column 'risk'"), "{m}");
    }
}

#[test]
fn a_declared_special_state_reads_its_token() {
    let t = data::parse_csv("amount,risk\n5,good\nNA,bad\n9,bad\n").unwrap();
    let opts = InferOptions {
        special_codes: vec![SpecialCode {
            column: Some("amount".into()),
            code: -1.0,
            label: "NA".into(),
        }],
        ..infer_opts()
    };
    let d = data::infer(&t, &opts).unwrap();
    assert_eq!(d.rows, vec![vec![5.0], vec![-1.0], vec![9.0]]);
    assert_eq!(d.schema.describe_value(0, -1.0), "'NA' (-1)");
    // the same file under the inferred schema: the label reads as the code
    assert_eq!(data::rows_under_schema(&t, &d.schema).unwrap(), d.rows);
    // a declaration for another column does not cover this one
    let other = InferOptions {
        special_codes: vec![SpecialCode {
            column: Some("risk".into()),
            code: -1.0,
            label: "NA".into(),
        }],
        ..infer_opts()
    };
    assert!(data_error(data::infer(&t, &other)).contains("column 'amount'"));
}

#[test]
fn a_favourable_value_no_row_has_names_the_values_seen() {
    // UCI Adult's test file writes ">50K." where its training file writes ">50K"
    let t = data::parse_csv("hours,income\n40,>50K.\n20,<=50K.\n").unwrap();
    let opts = InferOptions {
        target: "income".into(),
        favourable: ">50K".into(),
        ..Default::default()
    };
    let m = data_error(data::infer(&t, &opts));
    assert!(
        m.contains("no row has the favourable label '>50K' in column 'income'; the values seen are '<=50K.', '>50K.'"),
        "{m}"
    );
    let many: String = (0..15).map(|i| format!("1,v{i:02}\n")).collect();
    let t = data::parse_csv(&format!("x,y\n{many}")).unwrap();
    let m = data_error(data::labels_of(&t, "y", "yes"));
    assert!(m.contains("'v09' and 5 more"), "{m}");
}

#[test]
fn fits_need_a_row_of_each_class() {
    let x = vec![vec![0.1, 0.2], vec![0.3, 0.4]];
    for y in [vec![0.0, 0.0], vec![1.0, 1.0]] {
        let lin = LinearModel::fit(&x, &y, LogisticFit::default());
        assert!(
            matches!(&lin, Err(Error::InvalidArgument(m)) if m.contains("at least one row of each class")),
            "{lin:?}"
        );
        let mlp = MlpModel::train(&x, &y, &MlpTraining::default());
        assert!(matches!(mlp, Err(Error::InvalidArgument(_))));
        let u = ModelUncertainty::from_ensemble(&x, &y, EnsembleConfig::default());
        assert!(matches!(u, Err(Error::InvalidArgument(_))));
    }
    // one row: an error, not a panic
    let u = ModelUncertainty::from_ensemble(&x[..1], &[1.0], EnsembleConfig::default());
    assert!(matches!(u, Err(Error::InvalidArgument(_))));
    let bad = LinearModel::fit(&x, &[0.0, 0.5], LogisticFit::default());
    assert!(matches!(bad, Err(Error::InvalidArgument(m)) if m.contains("label 1 is 0.5")));
    assert!(LinearModel::fit(&x, &[0.0, 1.0], LogisticFit::default()).is_ok());
}

fn toy_schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("amount", 0.0, 10.0),
        Feature::categorical("housing", &["own", "rent"]),
    ])
    .unwrap()
}

#[test]
fn semicolon_and_headerless_files_read_as_declared() {
    let s = toy_schema();
    let semi = temp_file(
        "rust",
        "semicolon.csv",
        "risk;housing;amount\ngood;own;2,5\nbad;rent;7\n",
    );
    let opts = CsvOptions {
        delimiter: b';',
        has_header: true,
    };
    // "2,5" is a decimal comma: not a number cfx reads, and the error says where
    let m = data_error(data::read_dataset(&s, &semi, "risk", "good", &opts));
    assert!(
        m.contains("data row 1, column 'amount': '2,5' is not a number"),
        "{m}"
    );
    let semi = temp_file(
        "rust",
        "semicolon2.csv",
        "risk;housing;amount\ngood;own;2.5\nbad;rent;7\n",
    );
    let d = data::read_dataset(&s, &semi, "risk", "good", &opts).unwrap();
    assert_eq!(d.rows, vec![vec![2.5, 0.0], vec![7.0, 1.0]]);
    assert_eq!(d.labels, vec![1.0, 0.0]);
    // the same file read with commas has one column named "risk;housing;amount"
    assert!(matches!(
        data::read_dataset(&s, &semi, "risk", "good", &CsvOptions::default()),
        Err(Error::NotFound(_))
    ));
    // without a header: the schema's features, then the label
    let bare = temp_file("rust", "bare.csv", "2.5;own;good\n7;rent;bad\n");
    let opts = CsvOptions {
        delimiter: b';',
        has_header: false,
    };
    let d2 = data::read_dataset(&s, &bare, "risk", "good", &opts).unwrap();
    assert_eq!((d2.rows, d2.labels), (d.rows, d.labels));
    let short = temp_file("rust", "short.csv", "2.5;good\n");
    let m = data_error(data::read_dataset(&s, &short, "risk", "good", &opts));
    assert!(m.contains("2 columns, but 3 names"), "{m}");
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

#[test]
fn the_c_abi_reads_semicolon_files_and_refuses_bad_ones() {
    let s = toy_schema();
    let sj = c(&s.to_json());
    unsafe {
        let mut schema: *const cfx_schema = null();
        assert_eq!(
            cfx_schema_from_json(sj.as_ptr(), &mut schema),
            cfx_status::Ok
        );
        let semi = temp_file(
            "c",
            "semicolon.csv",
            "amount;housing;risk\n2.5;own;good\n7;rent;bad\n",
        );
        let path = c(semi.to_str().unwrap());
        let (risk, good) = (c("risk"), c("good"));
        let mut d: *const cfx_dataset = null();
        assert_eq!(
            cfx_dataset_from_csv_ex(
                schema,
                path.as_ptr(),
                risk.as_ptr(),
                good.as_ptr(),
                b';' as _,
                1,
                &mut d
            ),
            cfx_status::Ok
        );
        let mut n = 0usize;
        assert_eq!(cfx_dataset_n_rows(d, &mut n), cfx_status::Ok);
        assert_eq!(n, 2);
        let mut row = [0.0; 2];
        let mut len = 0usize;
        assert_eq!(
            cfx_dataset_row(d, 1, row.as_mut_ptr(), 2, &mut len),
            cfx_status::Ok
        );
        assert_eq!(row, [7.0, 1.0]);
        let mut label = -1.0;
        assert_eq!(cfx_dataset_label(d, 0, &mut label), cfx_status::Ok);
        assert_eq!(label, 1.0);
        cfx_dataset_free(d);
        // headerless
        let bare = temp_file("c", "bare.csv", "2.5;own;good\n7;rent;bad\n");
        let bare_path = c(bare.to_str().unwrap());
        d = null();
        assert_eq!(
            cfx_dataset_from_csv_ex(
                schema,
                bare_path.as_ptr(),
                risk.as_ptr(),
                good.as_ptr(),
                b';' as _,
                0,
                &mut d
            ),
            cfx_status::Ok
        );
        cfx_dataset_free(d);
        // bad options
        d = null();
        assert_eq!(
            cfx_dataset_from_csv_ex(
                schema,
                path.as_ptr(),
                risk.as_ptr(),
                good.as_ptr(),
                b';' as _,
                2,
                &mut d
            ),
            cfx_status::InvalidArgument
        );
        assert_eq!(
            cfx_dataset_from_csv_ex(
                schema,
                path.as_ptr(),
                risk.as_ptr(),
                good.as_ptr(),
                b'"' as _,
                1,
                &mut d
            ),
            cfx_status::InvalidArgument
        );
        assert!(d.is_null());
        // the refusals through the old entry point
        for (name, text, needle) in [
            ("header_only.csv", "amount,housing,risk\n", "no data rows"),
            (
                "duplicate.csv",
                "amount,housing,amount,risk\n1,own,2,good\n",
                "'amount' is used by columns 1 and 3",
            ),
            (
                "no_favourable.csv",
                "amount,housing,risk\n1,own,Good\n",
                "the values seen are 'Good'",
            ),
            (
                "missing.csv",
                "amount,housing,risk\n1,own,good\n?,own,bad\n",
                "missing value '?'",
            ),
        ] {
            let p = c(temp_file("c", name, text).to_str().unwrap());
            assert_eq!(
                cfx_dataset_from_csv(schema, p.as_ptr(), risk.as_ptr(), good.as_ptr(), &mut d),
                cfx_status::DataError,
                "{name}"
            );
            assert!(d.is_null());
            let m = cfx::ffi::error::last_error().unwrap();
            assert!(m.contains(needle), "{name}: {m}");
        }
        // a one-row dataset loads, but no fit or uncertainty estimate can use it
        let one = c(
            temp_file("c", "one.csv", "amount,housing,risk\n1,own,good\n")
                .to_str()
                .unwrap(),
        );
        assert_eq!(
            cfx_dataset_from_csv(schema, one.as_ptr(), risk.as_ptr(), good.as_ptr(), &mut d),
            cfx_status::Ok
        );
        let mut u = null();
        assert_eq!(
            cfx::ffi::copa::cfx_uncertainty_from_dataset(d, 10, 1, &mut u),
            cfx_status::InvalidArgument
        );
        assert!(u.is_null());
        assert!(
            cfx::ffi::error::last_error()
                .unwrap()
                .contains("each class")
        );
        let mut m = null();
        assert_eq!(
            cfx_model_fit_linear(d, 1.0, &mut m),
            cfx_status::InvalidArgument
        );
        assert!(m.is_null());
        cfx_dataset_free(d);
        cfx_schema_free(schema);
    }
}

/// Advice rules given to the inference land on the inferred schema exactly as
/// the German preset sets them by hand afterwards (oracle: `german_credit`),
/// and a rule for a column that is no feature is refused, naming it.
#[test]
fn inference_takes_advice_rules_per_feature() {
    use cfx::schema::{Actionability, Direction};
    let path = data::bundled_german_path();
    let t = data::read_csv(&path).unwrap();
    let immutable = Actionability {
        mutable: false,
        ..Default::default()
    };
    let mut opts = InferOptions {
        target: "creditability".into(),
        favourable: "good".into(),
        ..Default::default()
    };
    opts.actionability
        .insert("personal_status_and_sex".into(), immutable.clone());
    opts.actionability
        .insert("foreign_worker".into(), immutable.clone());
    opts.actionability.insert(
        "age_in_years".into(),
        Actionability {
            direction: Direction::IncreaseOnly,
            ..Default::default()
        },
    );
    let inferred = data::infer(&t, &opts).unwrap();
    let preset = data::german_credit(&path).unwrap();
    assert_eq!(inferred.schema.to_json(), preset.schema.to_json());
    opts.actionability.insert("creditability".into(), immutable);
    match data::infer(&t, &opts) {
        Err(Error::NotFound(m)) => assert!(m.contains("'creditability'"), "{m}"),
        other => panic!("expected NotFound, got {other:?}"),
    }
}

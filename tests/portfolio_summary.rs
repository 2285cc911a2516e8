//! The portfolio summary against hand-computed oracles: a seven-row output
//! written by hand (accepted, declined with and without recourse, an error
//! line, a special state), with every count, share, type-7 quantile and change
//! count worked out on paper in the comments; the breakdowns by a text column
//! and by bands with a special state; refusals of malformed outputs.

use cfx::coherent::portfolio_summary::{GroupBy, summarize};
use cfx::schema::{Feature, Schema};
use std::path::PathBuf;

fn schema() -> Schema {
    Schema::new(vec![
        Feature::contiguous("income", 0.0, 100.0).with_special(-9.0, "no record"),
        Feature::contiguous("debt", 0.0, 50.0),
        Feature::categorical("region", &["north", "south"]),
    ])
    .unwrap()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cfx-summary-{}-{name}", std::process::id()))
}

const INPUT: &str = "income,debt,region,id\n\
80,5,north,a\n\
10,30,north,b\n\
45,45,south,c\n\
60,999,south,d\n\
30,20,north,e\n\
55,40,south,f\n\
-9,10,south,g\n";

fn change(feature: usize, name: &str, from: f64, to: f64) -> String {
    format!(
        r#"{{"feature":{feature},"name":"{name}","from":{from},"to":{to},"from_text":"{from}","to_text":"{to}"}}"#
    )
}

fn declined(row: usize, cost: f64, changes: &[String]) -> String {
    format!(
        r#"{{"row":{row},"decision":"declined","probability":0.3,"outcome":"optimal","proved_by":"separable","counterfactual":{{"cost":{cost},"probability":0.51,"raw":[1,2,0],"changes":[{}],"status":"optimal","proved_by":"separable"}}}}"#,
        changes.join(",")
    )
}

fn output() -> String {
    [
        r#"{"row":0,"decision":"accepted","probability":0.9}"#.to_string(),
        declined(1, 2.0, &[change(0, "income", 10.0, 20.0)]),
        r#"{"row":2,"decision":"declined","probability":0.1,"outcome":{"infeasible":{"blocking":[]}},"proved_by":"highs","counterfactual":null}"#.to_string(),
        r#"{"row":3,"error":"row 5: debt 999 is neither in [0, 50] nor a special code"}"#.to_string(),
        declined(4, 1.0, &[change(0, "income", 30.0, 40.0), change(1, "debt", 20.0, 10.0)]),
        declined(5, 4.0, &[change(1, "debt", 40.0, 30.0)]),
        declined(6, 3.0, &[change(0, "income", -9.0, 50.0)]),
    ]
    .join("\n")
        + "\n"
}

fn files(tag: &str, out: &str) -> (PathBuf, PathBuf) {
    let (i, o) = (temp(&format!("{tag}.csv")), temp(&format!("{tag}.jsonl")));
    std::fs::write(&i, INPUT).unwrap();
    std::fs::write(&o, out).unwrap();
    (i, o)
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
}

#[test]
fn overall_counts_quantiles_and_changes_equal_the_hand_computed_ones() {
    let (i, o) = files("overall", &output());
    let r = summarize(&schema(), &i, &o, None).unwrap();
    let a = &r.overall;
    // 7 rows: row 0 accepted, row 3 an error, rows 1, 2, 4, 5, 6 declined;
    // all but row 2 have a counterfactual: 4/5.
    assert_eq!(
        (a.rows, a.accepted, a.declined, a.with_recourse, a.errors),
        (7, 1, 5, 4, 1)
    );
    close(a.share_with_recourse.unwrap(), 0.8);
    // Costs sorted: 1, 2, 3, 4. Type 7: h = 3p; q = x[⌊h⌋] + (h − ⌊h⌋)·1.
    let c = a.cost.unwrap();
    assert_eq!(c.n, 4);
    close(c.mean, 2.5);
    close(c.min, 1.0);
    close(c.p10, 1.3); // h = 0.3
    close(c.p25, 1.75); // h = 0.75
    close(c.median, 2.5); // h = 1.5
    close(c.p75, 3.25); // h = 2.25
    close(c.p90, 3.7); // h = 2.7
    close(c.max, 4.0);
    // income in rows 1, 4, 6 (all raised, −9 → 50 included): 3/4; debt in 4, 5 (both lowered): 2/4.
    let ch: Vec<_> = a
        .changes
        .iter()
        .map(|c| (c.feature.as_str(), c.count, c.increases, c.decreases))
        .collect();
    assert_eq!(ch, vec![("income", 3, 3, 0), ("debt", 2, 0, 2)]);
    close(a.changes[0].share, 0.75);
    close(a.changes[1].share, 0.5);
    assert!(r.groups.is_empty() && r.group_column.is_none());
    let text = r.to_text(5);
    assert!(
        text.contains("declined with recourse: 4/5 (80.0%)"),
        "{text}"
    );
    assert!(text.contains("median 2.500"), "{text}");
}

#[test]
fn breakdown_by_a_text_column_equals_the_hand_computed_groups() {
    let (i, o) = files("region", &output());
    let by = GroupBy {
        column: "region".into(),
        edges: vec![],
    };
    let r = summarize(&schema(), &i, &o, Some(&by)).unwrap();
    assert_eq!(r.group_column.as_deref(), Some("region"));
    let names: Vec<_> = r.groups.iter().map(|g| g.group.as_str()).collect();
    assert_eq!(names, ["north", "south"]);
    // north = rows 0, 1, 4: accepted 1, declined 2 both with recourse (costs 2, 1).
    let n = &r.groups[0];
    assert_eq!(
        (n.rows, n.accepted, n.declined, n.with_recourse, n.errors),
        (3, 1, 2, 2, 0)
    );
    close(n.share_with_recourse.unwrap(), 1.0);
    close(n.cost.unwrap().median, 1.5);
    close(n.cost.unwrap().p90, 1.9); // 1 + 0.9·(2 − 1)
    assert_eq!(
        (n.changes[0].feature.as_str(), n.changes[0].count),
        ("income", 2)
    );
    // south = rows 2, 3, 5, 6: an error, declined 2, 5, 6, recourse 5, 6 (costs 4, 3).
    let s = &r.groups[1];
    assert_eq!(
        (s.rows, s.accepted, s.declined, s.with_recourse, s.errors),
        (4, 0, 3, 2, 1)
    );
    close(s.share_with_recourse.unwrap(), 2.0 / 3.0);
    close(s.cost.unwrap().median, 3.5);
    close(s.cost.unwrap().p90, 3.9);
    // debt (row 5) and income (row 6) once each: the tie goes by name.
    let ch: Vec<_> = s
        .changes
        .iter()
        .map(|c| (c.feature.as_str(), c.count))
        .collect();
    assert_eq!(ch, vec![("debt", 1), ("income", 1)]);
    // The group totals add up to the whole.
    assert_eq!(n.rows + s.rows, r.overall.rows);
    let text = r.to_text(3);
    assert!(text.contains("by region:"), "{text}");
    assert!(text.contains("66.7%"), "{text}");
}

#[test]
fn bands_put_a_special_state_in_its_own_group() {
    let (i, o) = files("bands", &output());
    let by = GroupBy {
        column: "income".into(),
        edges: vec![25.0, 50.0],
    };
    let r = summarize(&schema(), &i, &o, Some(&by)).unwrap();
    // income: 80, 10, 45, 60, 30, 55, −9.
    let got: Vec<_> = r
        .groups
        .iter()
        .map(|g| (g.group.as_str(), g.rows, g.declined, g.with_recourse))
        .collect();
    assert_eq!(
        got,
        vec![
            ("no record (-9)", 1, 1, 1), // row 6
            ("< 25", 1, 1, 1),           // row 1
            ("[25, 50)", 2, 2, 1),       // rows 2 (no recourse), 4
            ("≥ 50", 3, 1, 1),           // rows 0 (accepted), 3 (error), 5
        ]
    );
    close(r.groups[2].share_with_recourse.unwrap(), 0.5);
    close(r.groups[2].cost.unwrap().median, 1.0);
    // The chart names every group and draws a bar per group and per change.
    let svg = r.to_svg("test portfolio", 5).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for label in [
        "no record (-9)",
        "[25, 50)",
        "≥ 50",
        "income",
        "debt",
        "test portfolio",
    ] {
        let escaped = label.replace('<', "&lt;");
        assert!(svg.contains(&escaped), "{label} missing");
    }
    // Bars: 5 groups (all + 4) in each of two panels, 2 changes, one background.
    assert_eq!(svg.matches("<rect").count(), 1 + 5 + 5 + 2, "{svg}");
}

#[test]
fn malformed_outputs_and_groupings_are_refused_by_name() {
    let s = schema();
    let bad_key = output().replacen(r#""probability":0.9"#, r#""probabilty":0.9"#, 1);
    let (i, o) = files("badkey", &bad_key);
    let e = summarize(&s, &i, &o, None).unwrap_err().to_string();
    assert!(e.contains("probabilty") && e.contains("line 1"), "{e}");

    let bad_change = output().replacen(r#""from_text""#, r#""from_txt""#, 1);
    let (i, o) = files("badchange", &bad_change);
    let e = summarize(&s, &i, &o, None).unwrap_err().to_string();
    assert!(e.contains("from_txt") && e.contains("line 2"), "{e}");

    let skipped = output().replacen(r#""row":1,"#, r#""row":7,"#, 1);
    let (i, o) = files("skipped", &skipped);
    let e = summarize(&s, &i, &o, None).unwrap_err().to_string();
    assert!(e.contains("row 7 where row 1 was expected"), "{e}");

    let (i, o) = files("nocol", &output());
    let by = GroupBy {
        column: "sex".into(),
        edges: vec![],
    };
    let e = summarize(&s, &i, &o, Some(&by)).unwrap_err().to_string();
    assert!(e.contains("no column 'sex'"), "{e}");

    let by = GroupBy {
        column: "region".into(),
        edges: vec![1.0],
    };
    let e = summarize(&s, &i, &o, Some(&by)).unwrap_err().to_string();
    assert!(e.contains("'north'") && e.contains("not a number"), "{e}");

    let by = GroupBy {
        column: "income".into(),
        edges: vec![50.0, 25.0],
    };
    let e = summarize(&s, &i, &o, Some(&by)).unwrap_err().to_string();
    assert!(e.contains("strictly increasing"), "{e}");

    // A cancelled run's shorter output is summarised as far as it goes.
    let short: String = output().lines().take(2).map(|l| format!("{l}\n")).collect();
    let (i, o) = files("short", &short);
    let by = GroupBy {
        column: "region".into(),
        edges: vec![],
    };
    let r = summarize(&s, &i, &o, Some(&by)).unwrap();
    assert_eq!((r.overall.rows, r.groups.len()), (2, 1));
}

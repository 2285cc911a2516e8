//! Inputs that belong together (issue 41), proven from C for every entry
//! point at once: this test reads `include/cfx.h`, finds every function that
//! takes two or more of the inputs that must be made for each other — a
//! schema, a model, a dataset, a plan, a policy (`const struct cfx_… *`
//! handles) or a ledger record (`record_json`) — and writes a C program that
//! calls each of them
//!
//! - once with every input from world A (the German credit schema, a model,
//!   dataset, policy, applicants file, portfolio run and ledger made for it),
//!   which must succeed: the arguments are well formed, so a refusal below is
//!   the mismatch's and nothing else's;
//! - once per handle input with that one input from world B (the same data
//!   with one feature more, and everything made for it), which must be
//!   refused with `CFX_STATUS_INVALID_ARGUMENT` or
//!   `CFX_STATUS_DIMENSION_MISMATCH` and a last-error message naming both
//!   inputs (the one from world B and another of the call's inputs).
//!
//! The arguments are built from each parameter's type and name (the
//! header's conventions: `out_…` results, `buf`/`cap`/`out_len` strings,
//! `raw`/`raw_len` rows, `…_path` files). A new function is covered without
//! editing this test; one whose parameters it cannot build fails the test,
//! named with the parameter, unless [`EXEMPT`] lists it with a reason.
//!
//! The program links the `libcfx.so` that `cargo test` builds beside this
//! test's executable (the crate is also a `cdylib`), in `deps/`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Functions taking two or more tracked inputs that this test does not call,
/// each with the reason. Empty: every such function is called.
const EXEMPT: &[(&str, &str)] = &[];

/// The handle types whose values must be made for each other.
const TRACKED: &[&str] = &[
    "cfx_schema",
    "cfx_model",
    "cfx_dataset",
    "cfx_plan",
    "cfx_policy",
];

/// The word a message uses for an input of a handle type.
fn word_of(ty: &str) -> &'static str {
    match ty {
        "cfx_schema" => "schema",
        "cfx_model" => "model",
        "cfx_dataset" => "dataset",
        "cfx_plan" => "plan",
        "cfx_policy" => "policy",
        "cfx_uncertainty" => "uncertainty",
        "cfx_noise" => "noise",
        "cfx_robust_result" | "cfx_coherent_result" => "result",
        "record_json" => "record",
        _ => "",
    }
}

/// The handles the C program builds for each world (`h_<type>[world]`);
/// types without a world B have one value, used in both places.
const BUILT: &[(&str, bool)] = &[
    ("cfx_schema", true),
    ("cfx_model", true),
    ("cfx_dataset", true),
    ("cfx_policy", true),
    ("cfx_config", false),
    ("cfx_noise", false),
    ("cfx_uncertainty", false),
    ("cfx_robust_result", false),
    ("cfx_coherent_result", false),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Debug, Clone)]
struct Param {
    ty: String,
    name: String,
}

impl Param {
    /// The handle type of an input handle (`const struct cfx_x *name`).
    fn handle(&self) -> Option<&str> {
        let t = self.ty.strip_prefix("const struct ")?.strip_suffix(" *")?;
        (!t.contains('*')).then_some(t)
    }
    fn tracked(&self) -> bool {
        self.handle().is_some_and(|h| TRACKED.contains(&h)) || self.name == "record_json"
    }
}

#[derive(Debug, Clone)]
struct Function {
    name: String,
    params: Vec<Param>,
}

/// The function declarations of the header (comments removed).
fn declarations(header: &str) -> Vec<Function> {
    let mut text = String::new();
    let mut rest = header;
    while let Some(i) = rest.find("/*") {
        text.push_str(&rest[..i]);
        let j = rest[i..].find("*/").expect("comments end") + i + 2;
        rest = &rest[j..];
    }
    text.push_str(rest);
    let text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for stmt in text.split(';') {
        // what follows the last brace: a declaration after a type's body
        // or after `extern "C" {`
        let stmt = &stmt[stmt.rfind(['{', '}']).map_or(0, |k| k + 1)..];
        let s = stmt.split_whitespace().collect::<Vec<_>>().join(" ");
        if s.contains("typedef") {
            continue;
        }
        let Some(open) = s.find('(') else { continue };
        let head = &s[..open];
        let Some(name) = head.split([' ', '*']).next_back() else {
            continue;
        };
        if !name.starts_with("cfx_") || !s.ends_with(')') {
            continue;
        }
        let inner = &s[open + 1..s.len() - 1];
        let params = if inner.trim() == "void" || inner.trim().is_empty() {
            Vec::new()
        } else {
            inner
                .split(',')
                .map(|p| {
                    let p = p.trim();
                    let k = p
                        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .expect("a parameter has a type");
                    Param {
                        ty: p[..=k]
                            .trim()
                            .replace("* ", "*")
                            .replace('*', " *")
                            .replace("  ", " "),
                        name: p[k + 1..].to_string(),
                    }
                })
                .map(|mut p| {
                    // normalise "const struct x **" spacing
                    p.ty = p.ty.replace(" * *", " **");
                    p
                })
                .collect()
        };
        out.push(Function {
            name: name.to_string(),
            params,
        });
    }
    out
}

/// The C argument expressions of one call, the declarations they need, or
/// the parameter this test cannot build.
struct Call {
    decls: String,
    args: Vec<String>,
}

/// Builds the call of `f` with `b_param` (an index into `f.params`) from
/// world B, or every input from world A when `None`.
fn build_call(f: &Function, b_param: Option<usize>) -> Result<Call, String> {
    let world = |i: usize| usize::from(b_param == Some(i));
    // Rows and files follow the world of the schema (else the dataset)
    // input: a row of the other world would be refused for its length.
    let ctx = f
        .params
        .iter()
        .position(|p| p.handle() == Some("cfx_schema"))
        .or_else(|| {
            f.params
                .iter()
                .position(|p| p.handle() == Some("cfx_dataset"))
        })
        .map_or(0, world);
    let mut decls = String::new();
    let mut args = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let (ty, name) = (p.ty.as_str(), p.name.as_str());
        let arg = if let Some(h) = p.handle() {
            match BUILT.iter().find(|(t, _)| *t == h) {
                Some((_, true)) => format!("h_{h}[{}]", world(i)),
                Some((_, false)) => format!("h_{h}"),
                None => return Err(format!("{name} (a {h} handle this test does not build)")),
            }
        } else if ty.ends_with(" **") && name.starts_with("out_") {
            let base = ty.strip_suffix(" **").unwrap();
            let _ = writeln!(decls, "    {base} *o{i} = NULL;");
            format!("&o{i}")
        } else if name == "out_len" && ty == "size_t *" {
            "&out_len".into()
        } else if ty.ends_with(" *") && name.starts_with("out_") && !ty.starts_with("const ") {
            let base = ty.strip_suffix(" *").unwrap();
            let _ = writeln!(
                decls,
                "    {base} o{i};\n    memset(&o{i}, 0, sizeof o{i});"
            );
            format!("&o{i}")
        } else {
            match (ty, name) {
                ("char *", "buf") => "buf".into(),
                ("size_t", "cap") => "sizeof buf".into(),
                ("const char *", "record_json") => "record[0]".into(),
                ("const char *", "input_path") if f.name.contains("revalidate") => {
                    format!("ledger_path[{ctx}]")
                }
                ("const char *", "input_path" | "csv_path") => format!("applicants_path[{ctx}]"),
                ("const char *", "explanations_path") => format!("explanations_path[{ctx}]"),
                ("const char *", "output_path" | "ledger_path") => {
                    let _ = writeln!(
                        decls,
                        "    char o{i}[4096];\n    fresh_path(o{i}, sizeof o{i});"
                    );
                    format!("o{i}")
                }
                ("const char *", "options_json") => "NULL".into(),
                ("const double *", "raw" | "row" | "rows") => format!("row[{ctx}]"),
                ("size_t", "raw_len" | "row_len" | "rows_len") => format!("row_len[{ctx}]"),
                ("size_t", "n_rows") => "1".into(),
                ("const char *const *", "ignore_columns") => "NULL".into(),
                ("size_t", "n_ignore") => "0".into(),
                ("size_t", "threads") => "1".into(),
                ("size_t", "chunk_rows") => "8".into(),
                ("int32_t", "method" | "reward") => "0".into(),
                ("double", "rho" | "delta") => "0.1".into(),
                ("void *", "user_data") => "NULL".into(),
                (t, _) if t.starts_with("cfx_") && t.ends_with("_fn") => "NULL".into(),
                _ => return Err(format!("{name} (of type {ty})")),
            }
        };
        args.push(arg);
    }
    Ok(Call { decls, args })
}

/// The fixed part of the program: both worlds, built through the C API from
/// the files the test writes (argv: the work folder, then world A's and
/// world B's schema JSON, data CSV and applicants CSV).
const PRELUDE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfx.h"

static const char *dir;
static int fresh;
static char buf[1 << 20];
static size_t out_len;

static void fresh_path(char *p, size_t cap) {
  snprintf(p, cap, "%s/out-%d", dir, fresh++);
}

static const char *last_error(void) {
  static char msg[8192];
  size_t need = cfx_last_error_length();
  if (need == 0) return "";
  if (need > sizeof msg || cfx_last_error_message(msg, sizeof msg) != CFX_STATUS_OK)
    return "(message too long)";
  return msg;
}

#define CHECK(call)                                                                  \
  do {                                                                               \
    cfx_status s_ = (call);                                                          \
    if (s_ != CFX_STATUS_OK) {                                                       \
      printf("SETUP %s failed: %s: %s\n", #call, cfx_status_str(s_), last_error()); \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *t;
  if (!f) { printf("SETUP cannot open %s\n", path); exit(1); }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  t = malloc((size_t)n + 1);
  if (fread(t, 1, (size_t)n, f) != (size_t)n) { printf("SETUP cannot read %s\n", path); exit(1); }
  t[n] = '\0';
  fclose(f);
  return t;
}

static void report(const char *fn, const char *variant, cfx_status st) {
  const char *m = st == CFX_STATUS_OK ? "" : last_error();
  printf("CALL\t%s\t%s\t%s\t", fn, variant, cfx_status_str(st));
  for (; *m; m++) putchar(*m == '\n' || *m == '\t' ? ' ' : *m);
  putchar('\n');
}

static const struct cfx_schema *h_cfx_schema[2];
static const struct cfx_model *h_cfx_model[2];
static const struct cfx_dataset *h_cfx_dataset[2];
static const struct cfx_policy *h_cfx_policy[2];
static const struct cfx_config *h_cfx_config;
static const struct cfx_noise *h_cfx_noise;
static const struct cfx_uncertainty *h_cfx_uncertainty;
static const struct cfx_robust_result *h_cfx_robust_result;
static const struct cfx_coherent_result *h_cfx_coherent_result;
static double row[2][64];
static size_t row_len[2];
static const char *applicants_path[2];
static char explanations_path[2][4096], ledger_path[2][4096];
static char *record[2];

static void world(int w, const char *schema_json, const char *data_csv, const char *applicants) {
  size_t n = 0, i;
  int accepted = 1;
  cfx_portfolio_counts counts;
  char *ledger, *eol;
  CHECK(cfx_schema_from_json(read_text(schema_json), &h_cfx_schema[w]));
  CHECK(cfx_dataset_from_csv(h_cfx_schema[w], data_csv, "creditability", "good", &h_cfx_dataset[w]));
  CHECK(cfx_model_fit_linear(h_cfx_dataset[w], 1.0, &h_cfx_model[w]));
  CHECK(cfx_policy_train(h_cfx_dataset[w], h_cfx_model[w], h_cfx_config, CFX_REWARD_KIND_PROBABILITY,
                         NULL, NULL, &h_cfx_policy[w]));
  CHECK(cfx_dataset_n_rows(h_cfx_dataset[w], &n));
  for (i = 0; i < n && accepted; i++) {
    CHECK(cfx_dataset_row(h_cfx_dataset[w], i, row[w], 64, &row_len[w]));
    CHECK(cfx_model_predict_raw(h_cfx_model[w], h_cfx_schema[w], row[w], row_len[w], NULL, NULL,
                                &accepted));
  }
  if (accepted) { printf("SETUP no declined applicant in world %d\n", w); exit(1); }
  applicants_path[w] = applicants;
  snprintf(explanations_path[w], sizeof explanations_path[w], "%s/explanations-%d.jsonl", dir, w);
  snprintf(ledger_path[w], sizeof ledger_path[w], "%s/ledger-%d.jsonl", dir, w);
  CHECK(cfx_portfolio_explain(h_cfx_schema[w], h_cfx_model[w], h_cfx_config, applicants,
                              explanations_path[w], NULL, 0, 1, NULL, NULL, &counts));
  CHECK(cfx_ledger_from_portfolio(h_cfx_schema[w], h_cfx_model[w], applicants,
                                  explanations_path[w], ledger_path[w], NULL, &n));
  if (n == 0) { printf("SETUP world %d: an empty ledger\n", w); exit(1); }
  ledger = read_text(ledger_path[w]);
  eol = strchr(ledger, '\n');
  if (eol) *eol = '\0';
  record[w] = ledger;
}

int main(int argc, char **argv) {
  cfx_config_builder *b = NULL;
  size_t hidden[1] = {8};
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc != 8) { printf("SETUP usage\n"); return 1; }
  dir = argv[1];
  CHECK(cfx_config_builder_new(&b));
  CHECK(cfx_config_builder_set_time_limit(b, 20.0));
  CHECK(cfx_config_builder_set_rl_episodes(b, 20, 4));
  CHECK(cfx_config_builder_set_rl_training(b, 0.8, 1e-3, 1e-3, 8, 64));
  CHECK(cfx_config_builder_set_rl_hidden(b, hidden, 1));
  CHECK(cfx_config_builder_set_seed(b, 7));
  CHECK(cfx_config_build(b, &h_cfx_config)); /* consumes the builder */
  world(0, argv[2], argv[3], argv[4]);
  world(1, argv[5], argv[6], argv[7]);
  CHECK(cfx_noise_gaussian_new(h_cfx_schema[0], 0.01, &h_cfx_noise));
  CHECK(cfx_uncertainty_from_dataset(h_cfx_dataset[0], 5, 3, &h_cfx_uncertainty));
  CHECK(cfx_robust_generate(h_cfx_schema[0], h_cfx_model[0], h_cfx_noise, CFX_ROBUST_METHOD_WACHTER,
                            h_cfx_config, row[0], row_len[0], &h_cfx_robust_result));
  CHECK(cfx_coherent_explain(h_cfx_schema[0], h_cfx_model[0], h_cfx_config, row[0], row_len[0],
                             &h_cfx_coherent_result));
  printf("SETUP done\n");
"#;

/// The folder of the `libcfx.so` built with this test: `cargo test` builds
/// the library with all its crate types into `deps/` (the one in the
/// profile's folder is `cargo build`'s, possibly older).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    for d in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        if d.join("libcfx.so").is_file() {
            return d;
        }
    }
    panic!(
        "no libcfx.so beside {}: build the library (`cargo build --release`) first",
        exe.display()
    );
}

/// German credit's lines, without the quotes' commas mattering: the target
/// is the last column and holds no quotes.
fn german_lines() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("examples/data/german_credit.csv")).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[0].ends_with(",creditability"));
    lines
}

fn without_target(line: &str) -> &str {
    &line[..line.rfind(',').unwrap()]
}

#[test]
fn every_entry_point_refuses_inputs_made_for_another_schema() {
    let header = std::fs::read_to_string(root().join("include/cfx.h")).unwrap();
    let functions = declarations(&header);
    assert!(
        functions.len() > 150,
        "the header parser found only {} functions",
        functions.len()
    );
    let covered: Vec<&Function> = functions
        .iter()
        .filter(|f| f.params.iter().filter(|p| p.tracked()).count() >= 2)
        .filter(|f| !EXEMPT.iter().any(|(n, _)| *n == f.name))
        .collect();
    // the functions this issue names are among them (the parser works)
    for must in [
        "cfx_revalidate_record",
        "cfx_revalidate_ledger",
        "cfx_coherent_explain",
        "cfx_policy_evaluate",
        "cfx_ledger_record_add_copa_version",
        "cfx_portfolio_explain",
    ] {
        assert!(
            covered.iter().any(|f| f.name == must),
            "{must} is not among the functions found: {:?}",
            covered.iter().map(|f| &f.name).collect::<Vec<_>>()
        );
    }

    // Both worlds' files: B is German credit with one feature more.
    let dir = std::env::temp_dir().join(format!("cfx-ffi-mismatch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lines = german_lines();
    let data_b: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l},extra_feature")
            } else {
                format!("{l},{}", (i * 7) % 5)
            }
        })
        .collect();
    let applicants_a: Vec<String> = lines
        .iter()
        .take(25)
        .map(|l| without_target(l).to_string())
        .collect();
    let applicants_b: Vec<String> = lines
        .iter()
        .take(25)
        .enumerate()
        .map(|(i, l)| {
            let extra = if i == 0 {
                "extra_feature".to_string()
            } else {
                ((i * 7) % 5).to_string()
            };
            format!("{},{extra}", without_target(l))
        })
        .collect();
    let write = |name: &str, lines: &[String]| {
        let p = dir.join(name);
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        p
    };
    let data_a_path = root().join("examples/data/german_credit.csv");
    let data_b_path = write("data-b.csv", &data_b);
    let applicants_a_path = write("applicants-a.csv", &applicants_a);
    let applicants_b_path = write("applicants-b.csv", &applicants_b);
    let schema_of = |p: &Path| cfx::data::german_credit(p).unwrap().schema;
    let (schema_a, schema_b) = (schema_of(&data_a_path), schema_of(&data_b_path));
    assert_eq!(schema_b.n_features(), schema_a.n_features() + 1);
    let schema_a_path = dir.join("schema-a.json");
    let schema_b_path = dir.join("schema-b.json");
    std::fs::write(&schema_a_path, schema_a.to_json()).unwrap();
    std::fs::write(&schema_b_path, schema_b.to_json()).unwrap();

    // The program: the prelude, then every call.
    let mut program = PRELUDE.to_string();
    let mut unbuildable = Vec::new();
    let mut expected: BTreeMap<(String, String), (String, String)> = BTreeMap::new();
    for f in &covered {
        let mut variants = vec![(None, "all-A".to_string())];
        for (i, p) in f.params.iter().enumerate() {
            if p.handle().is_some_and(|h| TRACKED.contains(&h)) {
                variants.push((Some(i), format!("{}-from-B", p.name)));
            }
        }
        for (b, label) in variants {
            match build_call(f, b) {
                Ok(call) => {
                    let _ = writeln!(
                        program,
                        "  {{\n{}    report(\"{}\", \"{}\", {}({}));\n  }}",
                        call.decls,
                        f.name,
                        label,
                        f.name,
                        call.args.join(", ")
                    );
                    if let Some(i) = b {
                        let p = &f.params[i];
                        let own = word_of(p.handle().unwrap());
                        let other: Vec<&str> = f
                            .params
                            .iter()
                            .enumerate()
                            .filter(|(j, _)| *j != i)
                            .map(|(_, q)| word_of(q.handle().unwrap_or(q.name.as_str())))
                            .filter(|w| !w.is_empty() && *w != own)
                            .collect();
                        expected
                            .insert((f.name.clone(), label), (own.to_string(), other.join("|")));
                    } else {
                        expected.insert((f.name.clone(), label), (String::new(), String::new()));
                    }
                }
                Err(param) => {
                    unbuildable.push(format!("{}: {param}", f.name));
                    break;
                }
            }
        }
    }
    assert!(
        unbuildable.is_empty(),
        "this test cannot build the arguments of these functions taking two or more of \
         schema/model/dataset/plan/policy/ledger record; teach `build_call` their parameters \
         or list them in EXEMPT with a reason:\n{}",
        unbuildable.join("\n")
    );
    program.push_str("  printf(\"END\\n\");\n  return 0;\n}\n");
    let source = dir.join("mismatch.c");
    std::fs::write(&source, &program).unwrap();

    // The library of this build under its soname too, in a folder of its
    // own: the soname `libcfx.so.<ABI>` of `target/release` may be an older
    // build's, and cargo puts that folder on the loader's path.
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let built = library_dir().join("libcfx.so");
    for name in [
        "libcfx.so".to_string(),
        format!("libcfx.so.{}", cfx::ffi::version::ABI_VERSION),
    ] {
        std::fs::copy(&built, lib.join(name)).unwrap();
    }
    let exe = dir.join("mismatch");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&source)
        .arg("-I")
        .arg(root().join("include"))
        .arg("-L")
        .arg(&lib)
        .arg("-lcfx")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .expect("a C compiler runs");
    assert!(
        out.status.success(),
        "the generated program ({}) does not compile:\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &lib)
        .arg(&dir)
        .arg(&schema_a_path)
        .arg(&data_a_path)
        .arg(&applicants_a_path)
        .arg(&schema_b_path)
        .arg(&data_b_path)
        .arg(&applicants_b_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(
        run.status.success() && stdout.contains("SETUP done") && stdout.ends_with("END\n"),
        "the program failed (status {:?}):\n{stdout}\nstderr:\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        run.stderr.is_empty(),
        "cfx wrote to stderr:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let mut seen = 0;
    let mut failures = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with("CALL\t")) {
        let parts: Vec<&str> = line.splitn(5, '\t').collect();
        let (name, label, status, message) = (parts[1], parts[2], parts[3], parts[4]);
        let (own, others) = &expected[&(name.to_string(), label.to_string())];
        seen += 1;
        if label == "all-A" {
            if status != "CFX_STATUS_OK" {
                failures.push(format!(
                    "{name}, every input made for each other: {status}: {message}"
                ));
            }
            continue;
        }
        let refused =
            status == "CFX_STATUS_INVALID_ARGUMENT" || status == "CFX_STATUS_DIMENSION_MISMATCH";
        let lower = message.to_lowercase();
        let names_both = lower.contains(own.as_str())
            && others
                .split('|')
                .any(|w| !w.is_empty() && lower.contains(w));
        if !refused || !names_both {
            failures.push(format!(
                "{name}, {label}: {status}: '{message}' (must be refused naming the {own} and \
                 one of: {others})"
            ));
        }
    }
    assert_eq!(seen, expected.len(), "calls reported:\n{stdout}");
    assert!(
        failures.is_empty(),
        "{} of {seen} calls:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! A bounded, seeded mutation run of every fuzz target on the stable
//! toolchain, part of `cargo test` (and so of `make test`).
//!
//! Each target starts from its committed inputs (`fuzz/seeds/<target>` and
//! `fuzz/regressions/<target>`) and feeds a fixed number of mutants to the
//! target's own body (`fuzz/bodies/<target>.rs`, shared with the libFuzzer
//! entries and `tests/fuzz_corpus.rs`). A mutant is one to four stacked
//! edits: bit flips, byte changes, insertions, deletions, duplicated ranges,
//! splices of two inputs, and tokens from a dictionary of what the formats
//! hold (the keys and words of the seeds, misspelt; NaN, infinities, 1e308,
//! −0, special codes such as −7, sizes past 2²⁴ and 2⁶⁴, delimiters, quotes, a
//! BOM, empty lines). Inputs made of parts (`common::split`) are mutated one
//! part at a time with the length header kept consistent, so the text parts
//! stay reachable.
//!
//! The run is bounded by iteration count, never by time, and reproducible:
//! the same seed gives the same mutants (xoshiro256++). `CFX_FUZZ_ITERATIONS`
//! sets the count of every target for a longer local run, `CFX_FUZZ_SEED`
//! another seed. A failing mutant is written to
//! `target/fuzz-failures/<target>/<hash>` and the test fails naming it; move
//! it to `fuzz/regressions/<target>` once the library is fixed. With
//! `CFX_FUZZ_TRACE=1` every mutant is first written to
//! `target/fuzz-failures/<target>/in-flight`, which names the input when a
//! mutant aborts the process instead of panicking.
//!
//! This run is coverage-blind: it does not see which branches a mutant
//! reaches, so it finds shallow defects of the kinds the dictionary
//! anticipates. `make fuzz` is the coverage-guided libFuzzer run (nightly
//! flags, its own instrumented build) that searches deeper.

#[path = "../fuzz/bodies/mod.rs"]
#[allow(dead_code)]
mod bodies;
#[path = "common/fuzz_inputs.rs"]
mod fuzz_inputs;

use fuzz_inputs::inputs;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

/// A fuzz target's body: it takes the raw input and asserts what must hold.
type Body = fn(&[u8]);

/// What a part of an input holds: text (JSON, CSV, model files), edited with
/// the dictionary and, when it is JSON, node by node; or bytes (selectors,
/// programs, numbers), edited bit by bit and with interesting f64s.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Text,
    Bytes,
}
use Part::{Bytes, Text};

/// How a target's input is laid out, for structure-aware mutation.
struct Target {
    name: &'static str,
    body: Body,
    /// The parts of `common::split`, text or bytes (one part: the input is
    /// one whole).
    parts: &'static [Part],
    /// Mutants per run, chosen so that each target takes roughly 10–20 s in
    /// release on a 2-core machine (measurements in docs/guide/hardening.md and BENCHMARKS.md, "What the fuzz build costs").
    iterations: u64,
    /// Tokens of this target's formats, added to the common dictionary.
    words: &'static [&'static str],
}

const TARGETS: &[Target] = &[
    Target {
        name: "csv_reading",
        body: bodies::csv_reading::run,
        parts: &[Text],
        iterations: 250_000,
        words: &[
            "income",
            "months_since_delinquency",
            "housing",
            "age",
            "good",
            "own",
            "rent",
            "free",
            "castle",
            "NA",
            "?",
            "nan",
            "NaN",
            "good,good",
            ",,",
            "0",
            "1",
            "2",
        ],
    },
    Target {
        name: "json_and_encoding",
        body: bodies::json_and_encoding::run,
        parts: &[Text, Text, Bytes],
        iterations: 900_000,
        words: &[
            "contiguous",
            "categorical",
            "special_states",
            "actionability",
            "mutable",
            "direction",
            "increase",
            "decrease",
            "any",
            "step",
            "integer",
            "levels",
            "lower",
            "upper",
            "code",
            "label",
            "weights",
            "actionable_lower",
            "actionable_upper",
            "forbidden",
            "cost_scale",
            "linear",
            "mlp",
            "threshold",
        ],
    },
    Target {
        name: "model_prediction",
        body: bodies::model_prediction::run,
        parts: &[Text, Bytes],
        iterations: 2_000_000,
        words: &[
            "linear",
            "mlp",
            "scorecard",
            "network",
            "layers",
            "n_in",
            "n_out",
            "relu",
            "identity",
            "sigmoid",
            "tanh",
            "threshold",
            "bias",
            "weights",
            "kind",
        ],
    },
    Target {
        name: "policy_json",
        body: bodies::policy_json::run,
        parts: &[Text],
        iterations: 300_000,
        words: &[
            "probability",
            "score",
            "hidden",
            "max_steps",
            "seed",
            "actor_param",
            "action_features",
            "encoded_dim",
            "relu",
            "identity",
            "n_in",
            "n_out",
        ],
    },
    Target {
        name: "schema_builder",
        body: bodies::schema_builder::run,
        parts: &[Bytes],
        iterations: 10_000_000,
        words: &[],
    },
    Target {
        name: "scorecard_import",
        body: bodies::scorecard_import::run,
        parts: &[Bytes, Text, Bytes],
        iterations: 800_000,
        words: &[
            "Variable",
            "Bin id",
            "Bin",
            "Count",
            "Points",
            "variable",
            "bin",
            "points",
            "basepoints",
            "Special",
            "Missing",
            "(-inf, 30.00)",
            "[30.00, inf)",
            "[-inf,30)",
            "[30,inf)",
            "['own', 'rent']",
            "own%,%rent",
            "%,%",
            "scorecard",
            "characteristics",
            "interval",
            "levels",
            "special",
            "missing",
            "cutoff",
            "base_points",
            "scaling",
        ],
    },
    Target {
        name: "tree_import",
        body: bodies::tree_import::run,
        parts: &[Bytes, Text, Text, Bytes],
        iterations: 1_000_000,
        words: &[
            "split_indices",
            "split_conditions",
            "left_children",
            "right_children",
            "default_left",
            "base_score",
            "binary:logistic",
            "num_feature",
            "feature_names",
            "Tree=",
            "num_leaves=",
            "split_feature=",
            "threshold=",
            "decision_type=",
            "left_child=",
            "right_child=",
            "leaf_value=",
            "end of trees",
            "missing",
            "special_as_missing",
            "threshold",
            "one_hot",
            "-1",
            "1e-35",
        ],
    },
    Target {
        name: "uncertainty",
        body: bodies::uncertainty::run,
        parts: &[Bytes, Bytes, Bytes],
        iterations: 1_500_000,
        words: &[],
    },
];

/// Tokens every text format is tried with: numbers at the edges of f64 and of
/// the library's size limits, special codes, JSON and CSV punctuation.
const COMMON_WORDS: &[&str] = &[
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "-Infinity",
    "1e308",
    "-1e308",
    "1e309",
    "-0",
    "-0.0",
    "0",
    "1",
    "-1",
    "0.5",
    "1e-320",
    "4.9e-324",
    "-7",
    "-8",
    "-9",
    "16777216",
    "16777217",
    "268435457",
    "2147483648",
    "4294967296",
    "9007199254740993",
    "18446744073709551616",
    "1e20",
    "99999999999999999999",
    "null",
    "true",
    "false",
    "{}",
    "[]",
    "\"\"",
    "\"",
    "'",
    "\\",
    "\\u0000",
    "\\ud800",
    ":",
    ",",
    ";",
    "\t",
    " ",
    "\n",
    "\r\n",
    "\n\n",
    "\u{feff}",
    "\u{e9}",
    "\"format_version\": 2",
    "\"format_version\": 0",
];

/// Numbers at the edges, for a JSON node: sizes past the library's limits,
/// 2⁶⁴ − 1, extreme and tiny floats, −0, special codes.
const JSON_NUMBERS: &[fn() -> serde_json::Value] = &[
    || serde_json::json!(0),
    || serde_json::json!(-1),
    || serde_json::json!(-7),
    || serde_json::json!(-0.0),
    || serde_json::json!(0.5),
    || serde_json::json!(1e308),
    || serde_json::json!(-1e308),
    || serde_json::json!(5e-324),
    || serde_json::json!(16_777_217u64),
    || serde_json::json!(268_435_457u64),
    || serde_json::json!(4_294_967_296u64),
    || serde_json::json!(u64::MAX),
    || serde_json::json!(i64::MIN),
];

/// Interesting f64 values for the binary parts.
const NUMBERS: &[f64] = &[
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e308,
    -1e308,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    -0.0,
    0.0,
    1.0,
    -7.0,
    0.5,
    16777217.0,
    4294967296.0,
];

/// FNV-1a, 64 bits: a stable name for an input.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Joins parts back into one input with the length header of
/// `common::split` (parts longer than a u16 are cut).
fn join(parts: &[Vec<u8>]) -> Vec<u8> {
    let n = parts.len();
    let mut out = Vec::new();
    for p in &parts[..n - 1] {
        out.extend_from_slice(&(p.len().min(u16::MAX as usize) as u16).to_le_bytes());
    }
    for (i, p) in parts.iter().enumerate() {
        let keep = if i + 1 < n {
            p.len().min(u16::MAX as usize)
        } else {
            p.len()
        };
        out.extend_from_slice(&p[..keep]);
    }
    out
}

/// The words of the seeds (identifiers of three or more characters), so the
/// dictionary holds every key and level of the committed formats.
fn seed_words(seeds: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut words: Vec<Vec<u8>> = Vec::new();
    for s in seeds {
        for w in s.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_')) {
            if w.len() >= 3 && w[0].is_ascii_alphabetic() && !words.iter().any(|x| x == w) {
                words.push(w.to_vec());
            }
        }
    }
    words
}

/// A seeded mutator over a target's inputs.
struct Mutator {
    rng: Xoshiro256PlusPlus,
    seeds: Vec<Vec<u8>>,
    /// Recent mutants, so edits stack over several generations.
    pool: Vec<Vec<u8>>,
    dictionary: Vec<Vec<u8>>,
    parts: &'static [Part],
}

/// JSON pointers (RFC 6901) of every node of `v`, the root included.
fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = k.replace('~', "~0").replace('/', "~1");
                pointers(x, format!("{at}/{key}"), out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

impl Mutator {
    fn new(seed: u64, seeds: Vec<Vec<u8>>, parts: &'static [Part], words: &[&str]) -> Self {
        let mut dictionary = seed_words(&seeds);
        dictionary.extend(COMMON_WORDS.iter().map(|w| w.as_bytes().to_vec()));
        dictionary.extend(words.iter().map(|w| w.as_bytes().to_vec()));
        Mutator {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            seeds,
            pool: Vec::new(),
            dictionary,
            parts,
        }
    }

    fn pick<'a>(&mut self, from: &'a [Vec<u8>]) -> &'a [u8] {
        &from[self.rng.random_range(0..from.len())]
    }

    /// The next mutant: a seed or a recent mutant, edited one to four times,
    /// mostly in one part (the header of a multi-part input kept consistent),
    /// sometimes as raw bytes across the parts.
    fn next(&mut self) -> Vec<u8> {
        let seeds = std::mem::take(&mut self.seeds);
        let pool = std::mem::take(&mut self.pool);
        let base = if pool.is_empty() || self.rng.random_bool(0.5) {
            self.pick(&seeds).to_vec()
        } else {
            self.pick(&pool).to_vec()
        };
        let edits = 1 + (self.rng.random::<u32>() % 16).trailing_zeros().min(3) as usize;
        let n = self.parts.len();
        let mutant = if n == 1 || self.rng.random_bool(0.9) {
            let mut parts: Vec<Vec<u8>> = bodies::common::split(&base, n)
                .into_iter()
                .map(<[u8]>::to_vec)
                .collect();
            let texts: Vec<usize> = (0..n).filter(|&k| self.parts[k] == Text).collect();
            let k = if !texts.is_empty() && self.rng.random_bool(0.75) {
                texts[self.rng.random_range(0..texts.len())]
            } else {
                self.rng.random_range(0..n)
            };
            let other = bodies::common::split(self.pick(&seeds), n)[k].to_vec();
            let text = self.parts[k] == Text;
            let had_nul = parts[k].contains(&0);
            // JSON is mostly edited as a tree, so most mutants still parse
            // and reach the checks behind the parser; sometimes a raw edit
            // follows.
            let json = text && serde_json::from_slice::<serde_json::Value>(&parts[k]).is_ok();
            let raw_edits = if json && self.rng.random_bool(0.7) {
                for _ in 0..edits {
                    self.edit_json(&mut parts[k]);
                }
                usize::from(self.rng.random_bool(0.2))
            } else {
                edits
            };
            for _ in 0..raw_edits {
                self.edit(&mut parts[k], &other, text);
            }
            // A NUL ends a C string: most text mutants keep theirs out.
            if text && !had_nul && self.rng.random_bool(0.95) {
                for b in parts[k].iter_mut().filter(|b| **b == 0) {
                    *b = b' ';
                }
            }
            join(&parts)
        } else {
            let mut v = base;
            let other = self.pick(&seeds).to_vec();
            for _ in 0..edits {
                self.edit(&mut v, &other, false);
            }
            v
        };
        self.seeds = seeds;
        self.pool = pool;
        if self.rng.random_bool(0.25) {
            if self.pool.len() < 256 {
                self.pool.push(mutant.clone());
            } else {
                let i = self.rng.random_range(0..self.pool.len());
                self.pool[i] = mutant.clone();
            }
        }
        mutant
    }

    /// One edit of a JSON text's tree (when it parses): a node replaced by
    /// an edge number, a word, another node or an empty value; a key renamed
    /// (often misspelt), removed or added; an array element removed or
    /// duplicated. The result is written back, compact or pretty.
    fn edit_json(&mut self, text: &mut Vec<u8>) {
        let Ok(mut root) = serde_json::from_slice::<serde_json::Value>(text) else {
            return;
        };
        use serde_json::Value;
        let mut all = Vec::new();
        pointers(&root, String::new(), &mut all);
        let at = all[self.rng.random_range(0..all.len())].clone();
        let donor = root
            .pointer(&all[self.rng.random_range(0..all.len())])
            .cloned()
            .unwrap_or(Value::Null);
        let word = String::from_utf8_lossy(&if self.rng.random_bool(0.3) {
            self.misspelt()
        } else {
            self.word()
        })
        .into_owned();
        let choice = self.rng.random_range(0..8);
        let number = self.rng.random_range(0..JSON_NUMBERS.len());
        let r: f64 = self.rng.random();
        let node = root.pointer_mut(&at).expect("a pointer of this tree");
        match (choice, &mut *node) {
            (0 | 1, _) => *node = JSON_NUMBERS[number](),
            (2, Value::Number(x)) => {
                let x = x.as_f64().unwrap_or(0.0);
                let y = [-x, 2.0 * x, x + 1.0, x * 1e6, x + 0.5, x.round(), x - 1e-9]
                    [(r * 7.0) as usize];
                *node = serde_json::Number::from_f64(y).map_or(Value::Null, Value::Number);
            }
            (2, _) => *node = Value::String(word),
            (3, _) => *node = donor,
            (4, Value::Object(m)) if !m.is_empty() => {
                let k = m.keys().nth((r * m.len() as f64) as usize).unwrap().clone();
                let v = m.remove(&k).unwrap();
                if r < 0.6 {
                    m.insert(word, v); // renamed
                }
            }
            (4, _) => {
                *node = [
                    Value::Null,
                    Value::Bool(true),
                    Value::Array(vec![]),
                    Value::Object(Default::default()),
                ][(r * 4.0) as usize]
                    .clone()
            }
            (5, Value::Object(m)) => {
                m.insert(word, donor);
            }
            (5 | 6, Value::Array(a)) if !a.is_empty() => {
                let i = (r * a.len() as f64) as usize;
                if choice == 5 {
                    a.remove(i);
                } else {
                    let copy = a[i].clone();
                    a.insert(i, copy);
                }
            }
            (_, Value::String(_)) => *node = Value::String(word),
            _ => *node = JSON_NUMBERS[number](),
        }
        *text = if self.rng.random_bool(0.5) {
            serde_json::to_vec(&root)
        } else {
            serde_json::to_vec_pretty(&root)
        }
        .expect("a JSON value writes");
    }

    /// A position in `0..=len`.
    fn at(&mut self, len: usize) -> usize {
        self.rng.random_range(0..=len)
    }

    /// A range of `v` of length at most `max`.
    fn range(&mut self, len: usize, max: usize) -> (usize, usize) {
        let a = self.at(len);
        let b = a + self.rng.random_range(0..=max.min(len - a));
        (a, b)
    }

    fn word(&mut self) -> Vec<u8> {
        let i = self.rng.random_range(0..self.dictionary.len());
        self.dictionary[i].clone()
    }

    /// A dictionary word misspelt: a letter dropped, doubled, or swapped.
    fn misspelt(&mut self) -> Vec<u8> {
        let mut w = self.word();
        if w.len() >= 2 {
            let i = self.rng.random_range(0..w.len() - 1);
            match self.rng.random_range(0..3) {
                0 => {
                    w.remove(i);
                }
                1 => w.insert(i, w[i]),
                _ => w.swap(i, i + 1),
            }
        }
        w
    }

    /// One edit of `v`; `other` is another input (or the same part of one)
    /// to splice from. Dictionary and line edits are for text only.
    fn edit(&mut self, v: &mut Vec<u8>, other: &[u8], text: bool) {
        let len = v.len();
        let op = if text {
            self.rng.random_range(0..12)
        } else {
            [0, 0, 1, 1, 2, 3, 4, 5, 10, 10][self.rng.random_range(0..10)]
        };
        match op {
            0 if len > 0 => {
                let i = self.rng.random_range(0..len);
                v[i] ^= 1 << self.rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = self.rng.random_range(0..len);
                v[i] = *[0u8, 1, 0x7f, 0x80, 0xff, b'0', b'9', b'-', b'.', b'e']
                    .get(self.rng.random_range(0..11))
                    .unwrap_or(&self.rng.random());
            }
            2 => {
                let n = self.rng.random_range(1..=8);
                let at = self.at(len);
                let bytes: Vec<u8> = (0..n).map(|_| self.rng.random()).collect();
                v.splice(at..at, bytes);
            }
            3 if len > 0 => {
                let max = if self.rng.random_bool(0.8) { 16 } else { len };
                let (a, b) = self.range(len, max);
                v.drain(a..b);
            }
            4 if len > 0 => {
                let max = if self.rng.random_bool(0.8) { 64 } else { len };
                let (a, b) = self.range(len, max);
                let copy = v[a..b].to_vec();
                let at = self.at(len);
                v.splice(at..at, copy);
            }
            5 if !other.is_empty() => {
                // splice: a head of one input and a tail of the other
                let (a, b) = (self.at(len), self.at(other.len()));
                v.truncate(a);
                v.extend_from_slice(&other[b..]);
            }
            6 | 7 => {
                let w = if self.rng.random_bool(0.3) {
                    self.misspelt()
                } else {
                    self.word()
                };
                let at = self.at(len);
                v.splice(at..at, w);
            }
            8 | 9 if len > 0 => {
                // replace a run of word or number characters by a token
                let token = |b: &u8| b.is_ascii_alphanumeric() || b"_.-+".contains(b);
                let i = self.rng.random_range(0..len);
                let (mut a, mut b) = (i, i);
                while a > 0 && token(&v[a - 1]) {
                    a -= 1;
                }
                while b < len && token(&v[b]) {
                    b += 1;
                }
                let w = if self.rng.random_bool(0.3) {
                    self.misspelt()
                } else {
                    self.word()
                };
                v.splice(a..b, w);
            }
            10 => {
                // an interesting f64 written in place, little-endian
                let x = NUMBERS[self.rng.random_range(0..NUMBERS.len())].to_le_bytes();
                let at = self.at(len);
                let end = (at + 8).min(len);
                v.splice(at..end, x);
            }
            11 if len > 0 => {
                // a line duplicated or removed
                let starts: Vec<usize> = std::iter::once(0)
                    .chain(
                        v.iter()
                            .enumerate()
                            .filter(|(_, b)| **b == b'\n')
                            .map(|(i, _)| i + 1),
                    )
                    .filter(|&i| i < len)
                    .collect();
                let s = starts[self.rng.random_range(0..starts.len())];
                let e = v[s..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(len, |p| s + p + 1);
                if self.rng.random_bool(0.5) {
                    let line = v[s..e].to_vec();
                    v.splice(e..e, line);
                } else {
                    v.drain(s..e);
                }
            }
            _ => {
                let at = self.at(len);
                let b = self.rng.random();
                v.insert(at, b);
            }
        }
    }
}

/// The folder for failing mutants: `<target dir>/fuzz-failures/<target>`.
fn failure_dir(target: &str) -> PathBuf {
    // cargo runs the test binary as <target dir>/<profile>/deps/<binary>.
    let exe = std::env::current_exe().expect("the test binary's path");
    let target_dir = match exe.ancestors().nth(3) {
        Some(dir) if exe.parent().is_some_and(|d| d.ends_with("deps")) => dir.to_path_buf(),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
    };
    target_dir.join("fuzz-failures").join(target)
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        let v = v.trim();
        let parsed = match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => v.parse(),
        };
        parsed.unwrap_or_else(|_| panic!("{name}={v} is not a whole number"))
    })
}

/// Runs `name`'s body on its seeds and regressions, then on its mutants;
/// fails naming every failing input written (at most five).
fn fuzz(name: &str) {
    let target = TARGETS
        .iter()
        .find(|t| t.name == name)
        .expect("a known target");
    let iterations = env_u64("CFX_FUZZ_ITERATIONS").unwrap_or(target.iterations);
    let seed = env_u64("CFX_FUZZ_SEED").unwrap_or(0x00cf_f0f0_2026) ^ fnv(name.as_bytes());
    let trace = std::env::var_os("CFX_FUZZ_TRACE").is_some_and(|v| v != "0");
    let mut seeds = inputs("seeds", name);
    seeds.extend(inputs("regressions", name));
    assert!(!seeds.is_empty(), "fuzz target {name} has no seeds");
    let dir = failure_dir(name);
    let mut mutator = Mutator::new(seed, seeds.clone(), target.parts, target.words);
    let mut failures: Vec<PathBuf> = Vec::new();
    let candidates = seeds
        .into_iter()
        .chain((0..iterations).map(|_| mutator.next()));
    for input in candidates {
        if trace {
            std::fs::create_dir_all(&dir).expect("the failure folder");
            std::fs::write(dir.join("in-flight"), &input).expect("the in-flight input");
        }
        let body = target.body;
        if std::panic::catch_unwind(|| body(&input)).is_err() {
            std::fs::create_dir_all(&dir).expect("the failure folder");
            let path = dir.join(format!("{:016x}", fnv(&input)));
            std::fs::write(&path, &input).expect("the failing input");
            failures.push(path);
            if failures.len() == 5 {
                break;
            }
        }
    }
    if trace {
        let _ = std::fs::remove_file(dir.join("in-flight"));
    }
    assert!(
        failures.is_empty(),
        "fuzz target {name} fails on {} mutant(s) (seed {seed:#x}): {}",
        failures.len(),
        failures
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

#[test]
fn bounded_csv_reading() {
    fuzz("csv_reading");
}

#[test]
fn bounded_json_and_encoding() {
    fuzz("json_and_encoding");
}

#[test]
fn bounded_model_prediction() {
    fuzz("model_prediction");
}

#[test]
fn bounded_policy_json() {
    fuzz("policy_json");
}

#[test]
fn bounded_schema_builder() {
    fuzz("schema_builder");
}

#[test]
fn bounded_scorecard_import() {
    fuzz("scorecard_import");
}

#[test]
fn bounded_tree_import() {
    fuzz("tree_import");
}

#[test]
fn bounded_uncertainty() {
    fuzz("uncertainty");
}

/// Every target of `fuzz/Cargo.toml` has a bounded run here.
#[test]
fn every_fuzz_target_has_a_bounded_run() {
    let declared = fuzz_inputs::declared_targets();
    let run: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(declared, run);
}

/// The mutator is reproducible (same seed, same mutants), differs with the
/// seed, and keeps a multi-part input's header consistent with its parts.
#[test]
fn mutants_are_reproducible_and_well_formed() {
    let seeds = inputs("seeds", "scorecard_import");
    let run = |seed| {
        let mut m = Mutator::new(seed, seeds.clone(), &[Bytes, Text, Bytes], &[]);
        (0..200).map(|_| m.next()).collect::<Vec<_>>()
    };
    let (a, b, c) = (run(1), run(1), run(2));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.iter().any(|m| !seeds.contains(m)));
    let parts: Vec<Vec<u8>> = vec![b"ab".to_vec(), vec![], b"xyz".to_vec()];
    let joined = join(&parts);
    let back: Vec<Vec<u8>> = bodies::common::split(&joined, 3)
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(back, parts);
}

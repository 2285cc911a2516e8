//! A notice renders in a real browser (issue 40): a German notice under the
//! logistic model, with the bundled reason table and four principal
//! reasons, is opened in headless Chromium (`chromium-headless-shell`, which
//! `make test` installs). The rendered DOM (`--dump-dom`, after the page is
//! parsed and laid out) must hold the page's heading, the four reasons'
//! statements in order and the advice's heading; the screenshot (a PNG) must
//! not be blank: decoded pixel by pixel (by python3's zlib, the PNG filters
//! undone), at least 1 % of its pixels must differ from the page's
//! background, and some must carry the chart's red bars.
//!
//! Without the browser the test says so and passes, except under CI (`CI`
//! set), where a missing browser fails it.

use cfx::data;
use cfx::model::{LinearModel, LogisticFit, Model};
use cfx::notice::{NoticeOptions, ReasonTable, Reference, ReferenceKind, notice, to_html};
use std::path::Path;
use std::process::Command;

const BROWSER: &str = "chromium-headless-shell";

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The browser with the flags a container needs (no sandbox without user
/// namespaces, no GPU).
fn browser(args: &[&str]) -> Option<std::process::Output> {
    let out = Command::new(BROWSER)
        .args(["--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .args(args)
        .output();
    match out {
        Ok(o) => Some(o),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{BROWSER}: {e}"),
    }
}

/// Text content as Chromium serialises it: `&`, `<`, `>` escaped.
fn dom_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Decodes an 8-bit RGB or RGBA, non-interlaced PNG and prints the share of
/// pixels that differ from the top-left one and the share of reddish ones.
const PNG_STATS: &str = r#"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, color, _, _, interlace = ihdr
assert depth == 8 and color in (2, 6) and interlace == 0, ihdr
bpp = 3 if color == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
rows = []
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
bg = tuple(rows[0][:3])
other = red = 0
for line in rows:
    for x in range(w):
        px = tuple(line[x * bpp:x * bpp + 3])
        if px != bg:
            other += 1
        if px[0] > 150 and px[1] < 110 and px[2] < 110:
            red += 1
print(w, h, other / (w * h), red / (w * h))
"#;

#[test]
fn a_notice_renders_in_headless_chromium_with_its_four_reasons() {
    let d = data::german_credit(&data::bundled_german_path()).unwrap();
    let s = &d.schema;
    let lin = LinearModel::fit(&d.encoded(), &d.labels, LogisticFit::default()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = ReasonTable::from_csv(
        &std::fs::read_to_string(root.join("examples/data/reasons/german_reasons.csv")).unwrap(),
        s,
    )
    .unwrap();
    let reference = Reference::new(&lin, &d, ReferenceKind::AllApplicants).unwrap();
    let opts = NoticeOptions {
        skip_necessity: true,
        ..NoticeOptions::default()
    };
    let n = d
        .rows
        .iter()
        .filter(|r| !lin.accepts(&s.encode(r).unwrap()))
        .map(|r| notice(&lin, s, r, &reference, Some(&table), &opts).unwrap())
        .find(|n| n.reasons.reasons.len() == 4)
        .expect("a declined applicant with four reasons");
    let dir = std::env::temp_dir().join(format!("cfx-notice-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("notice.html");
    std::fs::write(&page, to_html(&n)).unwrap();
    let url = format!("file://{}", page.display());

    let Some(dom) = browser(&["--dump-dom", &url]) else {
        assert!(
            !in_ci(),
            "{BROWSER} is not installed (make test installs it)"
        );
        eprintln!(
            "notice: {BROWSER} not found; the browser check is skipped (make test installs it)"
        );
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8(dom.stdout).unwrap();
    assert!(dom.contains("Your application was not approved"), "{dom}");
    let mut at = 0;
    for r in &n.reasons.reasons {
        let st = dom_text(r.statement.as_ref().unwrap());
        let k = dom[at..]
            .find(&st)
            .unwrap_or_else(|| panic!("reason '{st}' missing or out of order in the DOM"));
        at += k + st.len();
    }
    assert!(dom.contains("What would change the decision") && dom.contains("<svg"));

    let png = dir.join("notice.png");
    let shot = browser(&[
        &format!("--screenshot={}", png.display()),
        "--window-size=900,1400",
        &url,
    ])
    .unwrap();
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let stats = Command::new("python3")
        .args(["-c", PNG_STATS, png.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(
        stats.status.success(),
        "{}",
        String::from_utf8_lossy(&stats.stderr)
    );
    let stats = String::from_utf8(stats.stdout).unwrap();
    let v: Vec<f64> = stats
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    eprintln!(
        "screenshot {}x{}: {:.1}% non-background, {:.2}% bar red",
        v[0],
        v[1],
        100.0 * v[2],
        100.0 * v[3]
    );
    assert_eq!((v[0], v[1]), (900.0, 1400.0));
    assert!(v[2] > 0.01, "the screenshot is (nearly) blank: {stats}");
    assert!(v[3] > 0.001, "no bar of the chart is visible: {stats}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! Writes a dataset's encoded design matrix as CSV (header = encoded column
//! names, last column = label), so that other tools can fit on exactly what
//! cfx fits on. Usage: `cargo run --release --example export_encoded -- german|heloc|taiwan OUT.csv`.

use cfx::data;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (name, out) = match args.as_slice() {
        [_, name, out] => (name.as_str(), out.as_str()),
        _ => return Err("usage: export_encoded german|heloc|taiwan OUT.csv".into()),
    };
    let d = match name {
        "german" => data::german_credit(&data::bundled_german_path())?,
        "heloc" => data::heloc(&data::shared_data_dir().join("heloc.csv"))?,
        "taiwan" => data::taiwan(&data::shared_data_dir().join("taiwan_default.csv"))?,
        other => return Err(format!("unknown dataset '{other}'").into()),
    };
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    let names = d.schema.encoded_names();
    let quoted: Vec<String> = names
        .iter()
        .map(|n| format!("\"{}\"", n.replace('"', "\"\"")))
        .collect();
    writeln!(f, "{},label", quoted.join(","))?;
    for (x, y) in d.encoded().iter().zip(&d.labels) {
        let cells: Vec<String> = x.iter().map(|v| format!("{v:.17e}")).collect();
        writeln!(f, "{},{}", cells.join(","), y)?;
    }
    println!(
        "wrote {} rows × {} encoded columns to {out}",
        d.rows.len(),
        names.len()
    );
    Ok(())
}

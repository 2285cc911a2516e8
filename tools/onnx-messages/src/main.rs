//! Writes the prost messages of `onnx-ml.proto` (package `onnx`) to the path
//! given, for `src/model/onnx/onnx_messages.rs`.
//!
//! Usage: `cargo run --manifest-path tools/onnx-messages/Cargo.toml -- <proto dir> <output file>`

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, out] = args.as_slice() else {
        eprintln!("usage: cfx-onnx-messages <folder of onnx-ml.proto> <output .rs file>");
        std::process::exit(2);
    };
    let files = protox::compile(["onnx-ml.proto"], [dir.as_str()]).unwrap_or_else(|e| {
        eprintln!("onnx-ml.proto does not compile: {e}");
        std::process::exit(1)
    });
    let tmp = std::env::temp_dir().join(format!("cfx-onnx-messages-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("a temporary folder");
    prost_build::Config::new()
        .out_dir(&tmp)
        .compile_fds(files)
        .expect("prost-build generates the ONNX messages");
    std::fs::copy(tmp.join("onnx.rs"), out).expect("the output file is writable");
    let _ = std::fs::remove_dir_all(&tmp);
}

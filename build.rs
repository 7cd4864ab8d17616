//! Whether the page is built split into chunks (src/chunks/): `LOOPSCOPE_SPLIT=1`, which
//! scripts/build-wasm.mjs sets for every build Trunk makes, turns on `--cfg loopscope_split` and
//! keeps the binary's relocations, which `xtask split` reads to move the code behind each split
//! point into its chunk. Without it (the browser tests, clippy) the page is one wasm.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(loopscope_split)");
    println!("cargo::rerun-if-env-changed=LOOPSCOPE_SPLIT");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32");
    if wasm && std::env::var("LOOPSCOPE_SPLIT").as_deref() == Ok("1") {
        println!("cargo::rustc-cfg=loopscope_split");
        println!("cargo::rustc-link-arg-bin=page=--emit-relocs");
    }
}

//! The page's wasm keeps its relocations: `xtask split` reads them to move the code behind each
//! split point (src/chunks.rs) into its own chunk. Only the `loopscope` binary, only for wasm32.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-bin=loopscope=--emit-relocs");
    }
}

//! The page's entry point. Trunk builds this binary for wasm32; on any other target it only
//! explains how to run the app.

#[cfg(target_arch = "wasm32")]
fn main() {
    loopscope::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Loopscope runs in the browser: start it with `./scripts/serve` (see README.md).");
    std::process::exit(2);
}

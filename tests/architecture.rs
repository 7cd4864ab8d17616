//! The layer invariants of ARCHITECTURE.md, checked on the source so a violation fails CI even
//! where the compiler would not notice (the engine compiles natively, but nothing stops a
//! `#[cfg(target_arch = "wasm32")]` block in it from naming web_sys).
#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Lines of code (comments stripped) in `layer` that mention any of `forbidden`.
fn violations(layer: &str, forbidden: &[&str]) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(layer);
    let mut found = Vec::new();
    for file in rust_files(&dir) {
        for (n, line) in fs::read_to_string(&file).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in forbidden {
                if code.contains(word) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found
}

const BROWSER: &[&str] = &["leptos", "web_sys", "js_sys", "wasm_bindgen", "gloo"];

#[test]
fn protocol_depends_on_nothing_else() {
    let mut forbidden = BROWSER.to_vec();
    forbidden.extend(["crate::engine", "crate::web", "super::super::engine"]);
    assert_eq!(violations("protocol", &forbidden), Vec::<String>::new());
}

#[test]
fn engine_never_touches_the_browser_or_the_ui() {
    let mut forbidden = BROWSER.to_vec();
    forbidden.push("crate::web");
    assert_eq!(violations("engine", &forbidden), Vec::<String>::new());
}

//! What the compiler cannot check of ARCHITECTURE.md's invariants. The layers are crates
//! (protocol → engine → loopscope), so a wrong import does not compile; but nothing stops a
//! manifest from giving the engine a browser crate, or a view from writing HTML.
#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

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

/// The dependency names of a manifest's sections that `section` accepts ("[dependencies]", …).
fn dependencies(manifest: &str, section: fn(&str) -> bool) -> Vec<String> {
    let text = fs::read_to_string(Path::new(ROOT).join(manifest)).unwrap();
    let mut names = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = section(line);
            continue;
        }
        if in_deps && let Some((name, _)) = line.split_once('=') {
            names.push(name.trim().trim_end_matches(".workspace").to_owned());
        }
    }
    names
}

const BROWSER: &[&str] = &["leptos", "web-sys", "js-sys", "wasm-bindgen", "wasm-bindgen-futures", "gloo-net"];

#[test]
fn the_wire_types_and_the_engine_never_depend_on_the_browser() {
    for (manifest, allowed) in [
        ("crates/protocol/Cargo.toml", &["serde", "serde_json", "thiserror"][..]),
        ("crates/engine/Cargo.toml", &["protocol", "serde", "serde_json", "thiserror", "futures", "sha2"][..]),
    ] {
        let all = dependencies(manifest, |s| s.contains("dependencies]"));
        let browser: Vec<&String> = all.iter().filter(|d| BROWSER.contains(&d.as_str())).collect();
        assert!(browser.is_empty(), "{manifest} depends on browser crates: {browser:?}");
        // What ships: the plain [dependencies] (the rest are native tests' dev-dependencies).
        for dep in dependencies(manifest, |s| s == "[dependencies]") {
            assert!(
                allowed.contains(&dep.as_str()),
                "{manifest}: {dep} is new: weigh it (docs/size.md), then list it here"
            );
        }
    }
}

/// Untrusted text is text: no view writes HTML (ARCHITECTURE.md, "Untrusted text is text").
#[test]
fn no_view_writes_html() {
    let mut found = Vec::new();
    for file in rust_files(&Path::new(ROOT).join("src")) {
        for (n, line) in fs::read_to_string(&file).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["inner_html", "set_inner_html", "outer_html", "insert_adjacent_html"].iter().any(|w| code.contains(w)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}

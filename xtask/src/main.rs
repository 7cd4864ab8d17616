//! `xtask split <input.wasm> <output dir>`: the step Trunk has no place for (trunk issue #1022),
//! between cargo and wasm-bindgen. It splits the page's wasm at its `#[wasm_split]` functions:
//! `<output dir>/main.wasm` (the first chunk, for wasm-bindgen), one `.wasm` per chunk,
//! `__wasm_split.js` (which fetches a chunk on first use) and `chunks.json` (which files each
//! split point needs, for prefetching). scripts/build-wasm.mjs runs it.

use std::{path::Path, process::ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, input, output] = args.as_slice() else {
        eprintln!("usage: xtask split <input.wasm> <output dir>");
        return ExitCode::from(2);
    };
    if command != "split" {
        eprintln!("xtask: unknown command \"{command}\" (the only one is split)");
        return ExitCode::from(2);
    }
    match split(Path::new(input), Path::new(output)) {
        Ok(chunks) => {
            println!("xtask split: {chunks} chunks beside the first");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask split: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn split(input: &Path, output: &Path) -> Result<usize, String> {
    let wasm = std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    std::fs::create_dir_all(output).map_err(|e| format!("cannot create {}: {e}", output.display()))?;
    let main = output.join("main.wasm");
    let mut opts = wasm_split_cli_support::Options::new(&wasm);
    opts.output_dir = output;
    opts.main_out_path = &main;
    opts.main_module = "./loopscope.js";
    opts.link_name = "./__wasm_split.js";
    let split = wasm_split_cli_support::transform(opts).map_err(|e| format!("{e:#}"))?;
    // Sorted, so the same build writes the same file.
    let prefetch: std::collections::BTreeMap<_, _> = split.prefetch_map.into_iter().collect();
    let json = serde_json::to_string_pretty(&prefetch).map_err(|e| format!("cannot write chunks.json: {e}"))?;
    std::fs::write(output.join("chunks.json"), json + "\n").map_err(|e| format!("cannot write chunks.json: {e}"))?;
    Ok(split.split_modules.len())
}

// After a release build (Trunk.toml runs it; by hand: node scripts/precompress.mjs dist): gives
// the loading screen the wasm's real size, then writes a .gz (gzip -9) and a .br (brotli 11)
// beside each text and wasm file, for hosts that serve precompressed files (the README says which).
import { readdirSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { join, extname } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const KINDS = [".wasm", ".js", ".mjs", ".css", ".html", ".json", ".svg"];
const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? "dist";

function walk(d) {
  return readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
}

// Trunk tells its initializer the wasm's size before wasm-opt; the loading screen's progress
// needs the size of the file as served (a compressed transfer still counts unpacked bytes).
const page = join(dir, "index.html");
try {
  const html = readFileSync(page, "utf8");
  const fixed = html.replace(/(__trunkInitializer\(init, '\.\/([^']+\.wasm)', )(\d+)/, (all, head, wasm) =>
    `${head}${statSync(join(dir, wasm)).size}`);
  if (fixed !== html) writeFileSync(page, fixed);
} catch (e) {
  if (e.code !== "ENOENT") throw e;
}

let files = 0;
for (const path of walk(dir).filter((p) => KINDS.includes(extname(p)))) {
  const bytes = readFileSync(path);
  writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
  files += 1;
}
console.log(`precompressed ${files} files in ${dir} (.gz and .br beside each)`);

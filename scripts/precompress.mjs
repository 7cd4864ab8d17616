// Writes a .gz (gzip -9) and a .br (brotli 11) beside each text and wasm file of a build, for
// hosts that serve precompressed files (the README says which). Run by scripts/post-build.mjs
// after a release build; by hand: node scripts/precompress.mjs dist
import { readdirSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { join, extname } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";
import { fileURLToPath } from "node:url";

const KINDS = [".wasm", ".js", ".mjs", ".css", ".html", ".json", ".svg"];

function walk(d) {
  return readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
}

export function precompress(dir) {
  let files = 0;
  for (const path of walk(dir).filter((p) => KINDS.includes(extname(p)))) {
    const bytes = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
    writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
    files += 1;
  }
  console.log(`precompressed ${files} files in ${dir} (.gz and .br beside each)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) precompress(process.argv[2] ?? "dist");

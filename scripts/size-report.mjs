// Size report of a release build: raw, gzip and brotli bytes of every wasm, JS and CSS file in
// the dist folder, and a budget on the gzip total. Usage: node scripts/size-report.mjs dist
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join, extname } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

// Gzip budget for everything the page downloads: a ratchet (lower it whenever the app shrinks;
// raise it only for a feature whose cost is recorded in docs/size.md, never silently). The target set
// in issue 2 is 250 KB (MCP Inspector's client is 290 KB): see docs/size.md for the measurements,
// what was tried, and what stands between us and the target.
const BUDGET_GZIP = 670_000;
const TARGET_GZIP = 250_000;

const dir = process.argv[2] ?? "dist";
const rows = readdirSync(dir)
  .filter((f) => [".wasm", ".js", ".mjs", ".css"].includes(extname(f)))
  .sort((a, b) => extname(a).localeCompare(extname(b)) || a.localeCompare(b))
  .map((file) => {
    const bytes = readFileSync(join(dir, file));
    return {
      file,
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: 9 }).length,
      brotli: brotliCompressSync(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
      }).length,
    };
  });

if (rows.length === 0) {
  console.error(`no wasm/js/css files in ${dir}: did the release build run?`);
  process.exit(1);
}

const total = rows.reduce(
  (t, r) => ({ file: "total", raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }),
  { raw: 0, gzip: 0, brotli: 0 },
);
const kb = (n) => (n / 1000).toFixed(1).padStart(9);
const name = (s) => s.replace(/-[0-9a-f]{12,16}(?=[._])/, "").replace(/^[0-9a-f]{12,16}-/, "").padEnd(28);
console.log(`${"file".padEnd(28)}${"raw KB".padStart(9)}${"gzip KB".padStart(9)}${"br KB".padStart(9)}`);
for (const r of [...rows, total]) console.log(`${name(r.file)}${kb(r.raw)}${kb(r.gzip)}${kb(r.brotli)}`);

mkdirSync("target", { recursive: true });
writeFileSync("target/size-report.json", JSON.stringify({ rows, total, budget_gzip: BUDGET_GZIP, target_gzip: TARGET_GZIP }, null, 2));

if (total.gzip > BUDGET_GZIP) {
  console.error(`size budget exceeded: ${total.gzip} B gzip > ${BUDGET_GZIP} B`);
  process.exit(1);
}
// Sentinels: code that costs kilobytes for little, found by name in the wasm Cargo built for
// Trunk, before wasm-bindgen strips the names (docs/size.md). clippy.toml keeps out core's
// Unicode tables; no lint can see an f64 being formatted.
const NAMED = "target/wasm32-unknown-unknown/release/loopscope.wasm";
const SENTINELS = [
  ["flt2dec", "core's float formatting ({x} or {x:.N} on an f64, about 6 KB gzip): write numbers with engine::num::{fixed, shortest}"],
];
if (existsSync(NAMED)) {
  const names = readFileSync(NAMED).toString("latin1");
  const found = SENTINELS.filter(([needle]) => names.includes(needle));
  for (const [needle, why] of found) console.error(`size sentinel "${needle}" is in ${NAMED}: ${why}`);
  if (found.length > 0) process.exit(1);
}

console.log(`size budget: ${total.gzip} B gzip of ${BUDGET_GZIP} B (${((100 * total.gzip) / BUDGET_GZIP).toFixed(0)} %)`);
console.log(`target: ${TARGET_GZIP} B gzip; ${total.gzip > TARGET_GZIP ? `${total.gzip - TARGET_GZIP} B over` : "met"} (docs/size.md)`);

// What the page weighs, checked against the budgets this repository keeps (docs/size.md):
//   first load  everything fetched before the page is interactive: the page, its styles, the
//               start script, the first chunk of wasm and its JS glue;
//   each chunk  what a feature fetches on first use (scripts/build-wasm.mjs, src/chunks/).
// Raw, gzip and brotli bytes of each file; the run fails above a budget. Budgets are a ratchet:
// lowered whenever the page shrinks, raised only for a feature whose cost docs/size.md records.
// Usage: node scripts/size-report.mjs dist
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const BUDGET = {
  first: { gzip: 299_100, brotli: 242_700 },
  // Per chunk, gzip, by split point (src/chunks/).
  chunks: {
    agent: 344_300, workshop: 156_600, explore: 272_400, detail: 56_500, signin: 84_000, demo: 53_900, settings: 71_000,
    compare: 32_900,
  },
};
// Issue 21's target for the first load.
const TARGET = { gzip: 300_000, brotli: 240_000 };

const dir = process.argv[2] ?? "dist";
if (!existsSync(join(dir, "wasm.json"))) {
  console.error(`no ${dir}/wasm.json: did the release build run (trunk build --release)?`);
  process.exit(1);
}
const wasm = JSON.parse(readFileSync(join(dir, "wasm.json"), "utf8"));
const page = readFileSync(join(dir, "index.html"), "utf8");
const css = [...page.matchAll(/<link[^>]*href="?\.\/([^" >]+\.css)/g)].map((m) => m[1]);
const first = ["index.html", "boot.mjs", ...css, wasm.script, `${wasm.dir}/__wasm_split.js`, wasm.wasm];

const measure = (file) => {
  const bytes = readFileSync(join(dir, file));
  return {
    file,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const sum = (name, rows) => rows.reduce((t, r) => ({ ...t, raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }), { file: name, raw: 0, gzip: 0, brotli: 0 });

const kb = (n) => (n / 1000).toFixed(1).padStart(9);
const line = (r, extra = "") => console.log(`${r.file.replace(/^wasm-[0-9a-f]+\//, "").padEnd(32)}${kb(r.raw)}${kb(r.gzip)}${kb(r.brotli)}${extra}`);
console.log(`${"first load".padEnd(32)}${"raw KB".padStart(9)}${"gzip KB".padStart(9)}${"br KB".padStart(9)}`);
const firstRows = first.map(measure);
firstRows.forEach(line);
const firstTotal = sum("total", firstRows);
line(firstTotal);

const failures = [];
const chunks = {};
// The agent chunk (the loop) is fetched at once after start: what a feature adds beyond it is
// what its first use waits for once the loop is in.
const agentFiles = new Set(wasm.chunks.agent ?? []);
console.log(`${"\nchunks (on first use)".padEnd(32)}${"".padStart(27)}  gzip KB beyond the agent chunk`);
for (const [split, files] of Object.entries(wasm.chunks)) {
  const total = sum(split, files.map(measure));
  const beyond = split === "agent" ? undefined : sum(split, files.filter((f) => !agentFiles.has(f)).map(measure)).gzip;
  chunks[split] = { ...total, beyond_agent_gzip: beyond };
  line(total, beyond === undefined ? "" : kb(beyond));
  const budget = BUDGET.chunks[split];
  if (budget === undefined) failures.push(`chunk "${split}" has no budget in scripts/size-report.mjs`);
  else if (total.gzip > budget) failures.push(`chunk "${split}": ${total.gzip} B gzip > its budget of ${budget} B`);
}
for (const kind of ["gzip", "brotli"]) {
  if (firstTotal[kind] > BUDGET.first[kind]) failures.push(`first load: ${firstTotal[kind]} B ${kind} > its budget of ${BUDGET.first[kind]} B`);
}

mkdirSync("target", { recursive: true });
writeFileSync("target/size-report.json", JSON.stringify({ first: firstRows, first_total: firstTotal, chunks, budget: BUDGET, target: TARGET }, null, 2));

// Sentinels: code that costs kilobytes for little, found by name in the wasm Cargo built, before
// wasm-bindgen strips the names (docs/size.md). clippy.toml keeps out core's Unicode tables; no
// lint can see an f64 being formatted.
const NAMED = "target/wasm32-unknown-unknown/release/page.wasm";
const SENTINELS = [
  ["flt2dec", "core's float formatting ({x} or {x:.N} on an f64, about 6 KB gzip): write numbers with engine::num::{fixed, shortest}"],
];
if (existsSync(NAMED)) {
  const names = readFileSync(NAMED).toString("latin1");
  for (const [needle, why] of SENTINELS.filter(([needle]) => names.includes(needle))) failures.push(`size sentinel "${needle}" is in ${NAMED}: ${why}`);
}

for (const f of failures) console.error(f);
if (failures.length > 0) process.exit(1);
const pct = (kind) => `${firstTotal[kind]} B ${kind} of ${BUDGET.first[kind]} B (${((100 * firstTotal[kind]) / BUDGET.first[kind]).toFixed(0)} %)`;
console.log(`first load: ${pct("gzip")}, ${pct("brotli")}`);
const over = ["gzip", "brotli"].filter((k) => firstTotal[k] > TARGET[k]).map((k) => `${firstTotal[k] - TARGET[k]} B ${k} over`);
console.log(`target: ${TARGET.gzip} B gzip, ${TARGET.brotli} B brotli; ${over.length > 0 ? over.join(", ") : "met"} (docs/size.md)`);

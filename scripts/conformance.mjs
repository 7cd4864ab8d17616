// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// package-lock.json) against Loopscope's MCP engine, through the native driver
// (crates/engine/examples/conformance.rs): every client scenario, each at every protocol revision it applies
// to that the client speaks, each run on its own (`client --scenario`; never the parallel
// `--suite` mode, which ignores the client's exit status and timeouts). Prints a table and
// "conformance: N/M client scenarios", and fails below the ratchet.
//
//   node scripts/conformance.mjs DRIVER [--only NAME]   (needs Node.js 22: scripts/test finds it)
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

// Runs that must pass: only ever raised (lower it and CI fails the change on review, not here).
const RATCHET = 56;
// Revisions the client speaks, newest first; a scenario runs at each it applies to.
const REVISIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];
// Extensions the client does not implement (optional by definition, SEP-1730): listed, not run.
const NOT_IMPLEMENTED = [/^auth\/(enterprise-managed-authorization|dpop|dpop-nonce|wif-jwt-bearer)$/, /^sep-2640-/];
const PARALLEL = 6;

const ROOT = new URL("../", import.meta.url).pathname;
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const LOOPBACK = join(ROOT, "tests/servers/loopback.cjs");
const OUT = join(ROOT, "target/conformance");
const driver = process.argv[2];
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
if (!driver) throw new Error("usage: node scripts/conformance.mjs DRIVER [--only NAME]");

function run(args, env = {}) {
  return new Promise((done) => {
    // Scenario servers listen on every interface unless told otherwise: the preload keeps them on
    // 127.0.0.1.
    const child = spawn(process.execPath, ["--require", LOOPBACK, SUITE, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

// The client scenarios and the revisions each applies to, as the installed suite lists them.
const listing = await run(["list", "--client"]);
const scenarios = [...listing.out.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map(([, name, tags]) => ({
  name,
  tags: tags.split(",").map((t) => t.trim()),
}));
if (scenarios.length === 0) throw new Error(`the suite listed no client scenarios:\n${listing.out}`);

const runs = [];
const skipped = [];
for (const s of scenarios) {
  if (only && s.name !== only) continue;
  if (NOT_IMPLEMENTED.some((re) => re.test(s.name))) {
    skipped.push(s.name);
    continue;
  }
  const dated = REVISIONS.filter((r) => s.tags.includes(r));
  // Extensions (no dated tag) run at the suite's default revision; older-only scenarios at
  // their newest; the rest at each of 2026-07-28 and 2025-11-25 they name.
  const at = dated.length === 0 ? [null] : dated.filter((r) => r === "2026-07-28" || r === "2025-11-25");
  for (const version of at.length ? at : [dated[0]]) runs.push({ name: s.name, version });
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

async function one({ name, version }) {
  const dir = join(OUT, `${name.replace(/\//g, "_")}${version ? `@${version}` : ""}`);
  const args = ["client", "--command", driver, "--scenario", name, "--timeout", "20000", "-o", dir];
  if (version) args.push("--spec-version", version);
  const started = Date.now();
  const { code, out } = await run(args);
  let checks = [];
  try {
    const sub = readdirSync(dir)[0];
    checks = JSON.parse(readFileSync(join(dir, sub, "checks.json"), "utf8"));
  } catch {}
  const failed = checks.filter((c) => c.status === "FAILURE");
  const passed = code === 0 && failed.length === 0;
  const why = passed ? "" : failed.map((c) => c.id).slice(0, 3).join(", ") || out.match(/(CLIENT EXITED[^\n]*|Error[^\n]*)/)?.[1] || `exit ${code}`;
  return { name, version, passed, seconds: (Date.now() - started) / 1000, why };
}

const results = [];
let next = 0;
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (next < runs.length) {
      const r = runs[next++];
      results.push(await one(r));
    }
  }),
);
results.sort((a, b) => a.name.localeCompare(b.name) || String(a.version).localeCompare(String(b.version)));

const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad("scenario", 44)} ${pad("revision", 11)} ${pad("seconds", 8)} result`);
for (const r of results) {
  const result = r.passed ? "pass" : `FAIL  ${r.why}`;
  console.log(`${pad(r.name, 44)} ${pad(r.version ?? "(default)", 11)} ${pad(r.seconds.toFixed(1), 8)} ${result}`);
}
for (const s of skipped) console.log(`${pad(s, 44)} ${pad("-", 11)} ${pad("-", 8)} not run: an extension this client does not implement`);
const passed = results.filter((r) => r.passed).length;
console.log(`conformance: ${passed}/${results.length} client scenarios (suite ${JSON.parse(readFileSync(join(ROOT, "node_modules/@modelcontextprotocol/conformance/package.json"), "utf8")).version}; results in target/conformance/)`);
if (!only && passed < RATCHET) {
  console.error(`conformance: ${passed} passed, below the ratchet of ${RATCHET}`);
  process.exit(1);
}

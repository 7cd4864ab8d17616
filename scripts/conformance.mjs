// The official MCP conformance suite against Loopscope's MCP engine, through the native driver
// (crates/engine/examples/conformance.rs), in two versions pinned in package-lock.json: the
// newest alpha (@modelcontextprotocol/conformance) and the latest stable (installed as
// conformance-stable). Every client scenario runs at every revision it is tagged with that the
// client speaks, each run on its own (`client --scenario`; never the parallel `--suite` mode,
// which ignores the client's exit status and timeouts). Prints a table and
// "conformance: N/M runs", writes the scenario × revision × suite table into
// docs/conformance.md (between its markers), and fails below the ratchet or when a run that is
// not listed below as known fails.
//
//   node scripts/conformance.mjs DRIVER [--only NAME]   (needs Node.js 22: scripts/test finds it)
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Runs that must pass: only ever raised.
const RATCHET = 100;
// Revisions the client speaks, oldest first (the table's columns).
const REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
// Extensions the client does not implement yet (optional by definition, SEP-1730): listed as
// "not run", with why. Issue 24 takes them on.
const NOT_IMPLEMENTED = [
];
// Runs known to fail, by "suite scenario@revision", with why: shown, not counted as a regression.
const KNOWN_FAILING = {};
// Checks the suite skips for a reason that is this client's design, each with why; any other
// skipped check counts as a failure (a skip proves nothing).
const SKIPS_ALLOWED = [
  [/^sep-2575-client-declares-roots-capability$/, /^$/, "the client declares no roots: a browser page has no filesystem to offer (C-36)"],
  [/^sep-2243-client-includes-standard-headers$/, /did not send a (initialize|notifications\/initialized) request/, "no initialize handshake at 2026-07-28, so no Mcp-Method header for it"],
];
const PARALLEL = 6;

const ROOT = new URL("../", import.meta.url).pathname;
const SUITES = ["@modelcontextprotocol/conformance", "conformance-stable"].map((pkg) => {
  const dir = join(ROOT, "node_modules", pkg);
  return { js: join(dir, "dist/index.js"), version: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version };
});
const LOOPBACK = join(ROOT, "tests/servers/loopback.cjs");
const OUT = join(ROOT, "target/conformance");
const DOC = join(ROOT, "docs/conformance.md");
const driver = process.argv[2];
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
if (!driver) throw new Error("usage: node scripts/conformance.mjs DRIVER [--only NAME]");

function run(suite, args) {
  return new Promise((done) => {
    // Scenario servers listen on every interface unless told otherwise: the preload keeps them on
    // 127.0.0.1.
    const child = spawn(process.execPath, ["--require", LOOPBACK, suite.js, ...args], {
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

// Each suite's client scenarios and the revisions each is tagged with, as the suite lists them.
const runs = [];
const notRun = [];
for (const suite of SUITES) {
  const listing = await run(suite, ["list", "--client"]);
  const scenarios = [...listing.out.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map(([, name, tags]) => ({
    name,
    tags: tags.split(",").map((t) => t.trim()),
  }));
  if (scenarios.length === 0) throw new Error(`suite ${suite.version} listed no client scenarios:\n${listing.out}`);
  for (const s of scenarios) {
    if (only && s.name !== only) continue;
    const dated = REVISIONS.filter((r) => s.tags.includes(r));
    // An extension runs at the suite's default revision; a "draft" scenario (the stable suite's
    // name for what became 2026-07-28) at the client's newest.
    const at = dated.length ? dated : [s.tags.includes("draft") ? "2026-07-28" : null];
    const skip = NOT_IMPLEMENTED.find(([re]) => re.test(s.name));
    for (const version of at) {
      const r = { suite, name: s.name, version, draft: s.tags.includes("draft") };
      if (skip) notRun.push({ ...r, why: skip[1] });
      else runs.push(r);
    }
  }
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

async function one({ suite, name, version, draft }) {
  const dir = join(OUT, suite.version, `${name.replace(/\//g, "_")}${version ? `@${version}` : ""}`);
  const args = ["client", "--command", driver, "--scenario", name, "--timeout", "20000", "-o", dir];
  if (version) args.push("--spec-version", draft ? "draft" : version);
  const started = Date.now();
  const { code, out } = await run(suite, args);
  let checks = [];
  // The suite writes DIR/<scenario name>-<time>/checks.json, the name's "/" making a folder.
  try {
    const file = readdirSync(dir, { recursive: true }).find((f) => String(f).endsWith("checks.json"));
    if (file) checks = JSON.parse(readFileSync(join(dir, String(file)), "utf8"));
  } catch {}
  const allowed = (c) => SKIPS_ALLOWED.find(([id, message]) => id.test(c.id) && message.test(c.errorMessage ?? ""));
  const failed = checks.filter((c) => c.status === "FAILURE" || (c.status === "SKIPPED" && !allowed(c)));
  for (const c of checks) if (c.status === "SKIPPED" && allowed(c)) skipsSeen.add(allowed(c)[2]);
  const passed = code === 0 && checks.length > 0 && failed.length === 0;
  const why = passed ? "" : checks.length === 0 && code === 0 ? "no checks.json" : failed.map((c) => c.id).slice(0, 3).join(", ") || out.match(/(CLIENT EXITED[^\n]*|Error[^\n]*)/)?.[1] || `exit ${code}`;
  return { suite, name, version, passed, seconds: (Date.now() - started) / 1000, why };
}

const results = [];
const skipsSeen = new Set();
let next = 0;
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (next < runs.length) {
      const r = runs[next++];
      results.push(await one(r));
    }
  }),
);
const order = (a, b) =>
  a.name.localeCompare(b.name) || a.suite.version.localeCompare(b.suite.version) || String(a.version).localeCompare(String(b.version));
results.sort(order);
notRun.sort(order);

const key = (r) => `${r.suite.version} ${r.name}@${r.version ?? "default"}`;
const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad("scenario", 44)} ${pad("suite", 15)} ${pad("revision", 11)} ${pad("seconds", 8)} result`);
for (const r of results) {
  const known = KNOWN_FAILING[key(r)];
  const result = r.passed ? "pass" : `FAIL  ${r.why}${known ? ` (known: ${known})` : ""}`;
  console.log(`${pad(r.name, 44)} ${pad(r.suite.version, 15)} ${pad(r.version ?? "(default)", 11)} ${pad(r.seconds.toFixed(1), 8)} ${result}`);
}
for (const r of notRun) console.log(`${pad(r.name, 44)} ${pad(r.suite.version, 15)} ${pad(r.version ?? "(default)", 11)} ${pad("-", 8)} not run: ${r.why}`);
const passed = results.filter((r) => r.passed).length;
const versions = SUITES.map((s) => s.version).join(" and ");
console.log(`conformance: ${passed}/${results.length} runs pass, ${notRun.length} not run (suites ${versions}; results in target/conformance/)`);

if (!only) writeTable();
const regressions = results.filter((r) => !r.passed && !KNOWN_FAILING[key(r)]);
if (regressions.length) {
  console.error(`conformance: ${regressions.length} run(s) failed that passed before: ${regressions.map(key).join("; ")}`);
  process.exit(1);
}
if (!only && passed < RATCHET) {
  console.error(`conformance: ${passed} passed, below the ratchet of ${RATCHET}`);
  process.exit(1);
}

/** The scenario × revision × suite table, generated from this run, into docs/conformance.md. */
function writeTable() {
  const cell = new Map();
  for (const r of results) cell.set(key(r), r.passed ? "pass" : KNOWN_FAILING[key(r)] ? "fail (known)" : "FAIL");
  for (const r of notRun) cell.set(key(r), "not run");
  const rows = [...new Set([...results, ...notRun].map((r) => `${r.name}\u0000${r.suite.version}`))].sort();
  const head = `| scenario | suite | ${REVISIONS.join(" | ")} | extension |\n|---|---|${REVISIONS.map(() => "---|").join("")}---|`;
  const lines = rows.map((row) => {
    const [name, version] = row.split("\u0000");
    const at = (rev) => cell.get(`${version} ${name}@${rev}`) ?? "—";
    return `| \`${name}\` | ${version} | ${REVISIONS.map(at).join(" | ")} | ${at("default")} |`;
  });
  const why = [...new Set(notRun.map((r) => r.why))].map((w) => `- not run: ${w}`);
  const known = Object.entries(KNOWN_FAILING).map(([k, w]) => `- fail (known), ${k}: ${w}`);
  const skips = [...skipsSeen].map((w) => `- a check the suite skipped, counted as passed: ${w}`);
  const table = [
    `Generated by \`scripts/conformance.mjs\` (the test command's conformance layer) on its last full run: ${passed}/${results.length} runs pass, ${notRun.length} not run. "—": the suite has no such scenario at that revision.`,
    "",
    head,
    ...lines,
    "",
    ...why,
    ...known,
    ...skips,
  ].join("\n");
  const doc = readFileSync(DOC, "utf8");
  const start = "<!-- conformance-table:start -->";
  const end = "<!-- conformance-table:end -->";
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/conformance.md has no ${start} … ${end} markers`);
  writeFileSync(DOC, `${doc.slice(0, from + start.length)}\n${table}\n${doc.slice(to)}`);
}

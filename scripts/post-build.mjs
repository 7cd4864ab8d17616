// Trunk's post-build step (Trunk.toml), on every build, debug or release, in Trunk's staging dir:
//   0. (release) minifies assets/boot.mjs, which Trunk copies as it is (terser, scripts/lib/tools.sh);
//   1. writes the start of the app into index.html: preload links for the first chunk of wasm
//      and its script, and the start script that hands them to assets/boot.mjs with the wasm's
//      size (scripts/build-wasm.mjs left their names in wasm.json);
//   2. writes the page's Content-Security-Policy into index.html, with the hashes of the inline
//      scripts and styles as they are now (docs/security.md);
//   3. writes the build's own file list into sw.js: the service worker caches those and nothing
//      else (every chunk included: offline after one visit);
//   4. (release) writes a .gz and a .br beside each file (scripts/precompress.mjs).
// By hand: node scripts/post-build.mjs dist release
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, statSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { createHash } from "node:crypto";
import { precompress } from "./precompress.mjs";

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? "dist";
const release = (process.argv[3] ?? process.env.TRUNK_PROFILE) === "release";

function walk(d) {
  return readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
}

// 0. The start's own script is part of the first load.
if (release) {
  const boot = join(dir, "boot.mjs");
  try {
    execFileSync("terser", [boot, "--module", "--compress", "passes=2", "--mangle", "--output", boot], { stdio: ["ignore", "inherit", "inherit"] });
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
    throw new Error("post-build: terser is not on PATH. ./scripts/serve installs it into .tools/terser (add its node_modules/.bin to PATH), or see README.md");
  }
}

const pagePath = join(dir, "index.html");
let page = readFileSync(pagePath, "utf8");

// 1. The start. The names are this build's own (no text from outside reaches the page here).
const wasm = JSON.parse(readFileSync(join(dir, "wasm.json"), "utf8"));
const sri = (file) => `sha384-${createHash("sha384").update(readFileSync(join(dir, file))).digest("base64")}`;
const start = [
  `<link rel="modulepreload" href="./${wasm.script}" integrity="${sri(wasm.script)}" crossorigin>`,
  `<link rel="preload" href="./${wasm.wasm}" as="fetch" type="application/wasm" integrity="${sri(wasm.wasm)}" crossorigin>`,
  `<script type="module">import start from "./boot.mjs"; start("./${wasm.script}", "./${wasm.wasm}", ${wasm.wasm_size});</script>`,
].join("");
const marker = /<script\b[^>]*\bdata-start\b[^>]*>\s*<\/script>/;
if (!marker.test(page)) throw new Error(`post-build: ${pagePath} has no <script type="module" data-start> for the app's start`);
page = page.replace(marker, start);
// Trunk's own Rust step, skipped (index.html), leaves its link behind.
page = page.replace(/<link\b[^>]*\bdata-trunk-skip\b[^>]*>/, "");

// 2. The policy. Scripts: this site's files and the page's own inline scripts, by hash (so the
// loading screen still paints before any file arrives); wasm compiled from this site's files.
// Styles likewise (the app sets styles property by property, never as attributes). Connections:
// anywhere over https, and plain http, which an MCP server on a workshop's network needs (the
// engine's URL policy decides which addresses are used: docs/security.md). Frames: only the MCP
// Apps sandbox above. Nothing else: no objects, forms, <base>, fonts or images from elsewhere.
// MCP Apps run behind the sandbox proxy (sandbox.html) on another origin (docs/apps.md): the one
// the site is built with (LOOPSCOPE_SANDBOX, the https address of its sandbox.html), else on this
// machine the other loopback name, else the page's own file in an opaque origin ('self').
const sandbox = (process.env.LOOPSCOPE_SANDBOX ?? "").trim();
let sandboxOrigin = "";
if (sandbox) {
  const url = new URL(sandbox);
  if (url.protocol !== "https:") throw new Error(`post-build: LOOPSCOPE_SANDBOX must be an https address, not ${sandbox}`);
  sandboxOrigin = url.origin;
  page = page.replace(/<meta name="loopscope-sandbox"[^>]*>/, "");
  page = page.replace(/<meta charset=[^>]*>/i, (m) => `${m}<meta name="loopscope-sandbox" content="${url.href}">`);
}
const sha = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
const inline = (tag) =>
  [...page.matchAll(new RegExp(`<${tag}(?![^>]*\\ssrc=)[^>]*>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => sha(m[1]));
const policy = [
  "default-src 'none'",
  `script-src 'self' 'wasm-unsafe-eval' ${inline("script").join(" ")}`,
  `style-src 'self' ${inline("style").join(" ")}`,
  "img-src 'self'",
  "connect-src 'self' https: http:",
  `frame-src 'self' http://localhost:* http://127.0.0.1:*${sandboxOrigin ? ` ${sandboxOrigin}` : ""}`,
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join("; ");
const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
page = page.replace(/<meta http-equiv="?Content-Security-Policy"?[^>]*>/i, "");
// Right after the charset, before any script or style: a policy applies only to what comes
// after it. (A minified page has no <head> tag to put it after.)
const charset = /<meta charset=[^>]*>/i;
if (!charset.test(page)) throw new Error(`post-build: ${pagePath} has no <meta charset> to put the CSP after`);
page = page.replace(charset, (m) => `${m}${meta}`);
writeFileSync(pagePath, page);
writeFileSync(join(dir, "csp.txt"), `${policy}\n`);

// 3. The service worker's list: every file of this build but itself, the sign-in's way back and
// the precompressed copies, relative to the worker's scope.
const files = walk(dir)
  .map((p) => relative(dir, p).split(sep).join("/"))
  .filter((f) => !/\.(gz|br)$/.test(f) && !f.startsWith("auth-callback.") && f !== "sw.js" && f !== "csp.txt" && f !== "wasm.json")
  .map((f) => (f === "index.html" ? "./" : `./${f}`))
  .sort();
const build = createHash("sha256").update(files.map((f) => f + (f === "./" ? page : "")).join("\n")).digest("hex").slice(0, 16);
const swPath = join(dir, "sw.js");
const sw = readFileSync(swPath, "utf8").replace(
  /const BUILD = \{[^;]*\};/,
  `const BUILD = ${JSON.stringify({ id: build, files })};`,
);
writeFileSync(swPath, sw);
console.log(`post-build: CSP with ${inline("script").length} inline script and ${inline("style").length} style hashes; sw.js lists ${files.length} files (build ${build})`);

// 4. Precompressed copies, for hosts that serve them.
if (release) precompress(dir);

// Trunk's build hook (Trunk.toml): the page's wasm, split into a first chunk and the chunks
// loaded on first use, in Trunk's staging dir. Trunk's own Rust step cannot do this: it has no
// place between cargo and wasm-bindgen (trunk issue #1022), and wasm-bindgen must keep the
// exports the chunks link against (--keep-lld-exports). So, on every build, debug or release:
//   1. cargo builds the page binary (`page`) for wasm32 with its split points on (LOOPSCOPE_SPLIT,
//      build.rs), keeping its relocations;
//   2. `xtask split` splits it at the `#[wasm_split]` functions (src/chunks/);
//   3. wasm-bindgen writes the JS glue for the first chunk;
//   4. (release) wasm-opt -Oz shrinks every wasm file, each on its own;
//      and terser minifies the JS glue and the loader; the small shared chunks go into one file
//      the loader takes them from (4c);
//   5. the files go to `wasm-<hash of their contents>/` in the staging dir: a new build never
//      reuses an old one's names, so a page still open from the old build fails to load a chunk
//      (and says so) instead of running a chunk that does not match it;
//   6. `wasm.json` says where they are, for scripts/post-build.mjs to write the page's tags.
// By hand: node scripts/build-wasm.mjs <staging dir> <debug|release>
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const staging = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
const profile = process.argv[3] ?? process.env.TRUNK_PROFILE ?? "debug";
if (!staging) throw new Error("build-wasm: no staging dir (run by Trunk, or: node scripts/build-wasm.mjs <dir> <debug|release>)");
const release = profile === "release";

// A tool missing from PATH is named, with where the project's scripts put it.
const run = (cmd, args, env = {}) => {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
    throw new Error(`build-wasm: ${cmd} is not on PATH. ./scripts/serve installs it (wasm-opt into .tools/binaryen, terser into .tools/terser: add their node_modules/.bin to PATH), or see README.md`);
  }
};

// 1.
// (LOOPSCOPE_SPLIT: the split points become chunk boundaries, build.rs.)
run("cargo", ["build", "--target", "wasm32-unknown-unknown", "--bin", "page", ...(release ? ["--release"] : [])], { LOOPSCOPE_SPLIT: "1" });
const built = join(ROOT, "target/wasm32-unknown-unknown", release ? "release" : "debug", "page.wasm");

// 2.
run("cargo", ["build", "--quiet", "-p", "xtask"]);
const work = join(ROOT, "target/wasm-split", profile);
rmSync(work, { recursive: true, force: true });
run(join(ROOT, "target/debug/xtask"), ["split", built, work]);

// 3.
run("wasm-bindgen", ["--target", "web", "--keep-lld-exports", "--no-demangle", "--out-dir", join(work, "bindgen"), "--out-name", "loopscope", join(work, "main.wasm")]);

// 4.
const files = new Map([
  ["loopscope.js", join(work, "bindgen/loopscope.js")],
  ["loopscope_bg.wasm", join(work, "bindgen/loopscope_bg.wasm")],
  ["__wasm_split.js", join(work, "__wasm_split.js")],
]);
for (const f of readdirSync(work).filter((f) => f.endsWith(".wasm") && f !== "main.wasm")) files.set(f, join(work, f));
if (release) {
  for (const [name, path] of files) {
    if (!name.endsWith(".wasm")) continue;
    const out = join(work, `opt-${name}`);
    run("wasm-opt", ["-Oz", "--enable-reference-types", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", path, "-o", out]);
    files.set(name, out);
  }
}

// 4b. The loader fetches a split point's shared chunks in the order listed, then its own file.
// Over HTTP/1.1 (six connections per host) the large files then start last, after dozens of
// small ones: ask for the split point's own file first and its shared chunks largest first, so
// the large ones download while the small ones wait for a connection (docs/size.md).
{
  const path = join(work, "__wasm_split.js");
  let js = readFileSync(path, "utf8");
  const own = "        const parallelStuff = deps.map(d => d());\n        const instantiate = fetcher();\n";
  if (!js.includes(own)) throw new Error("build-wasm: __wasm_split.js's loader changed; look again at step 4b");
  js = js.replace(own, "        const instantiate = fetcher();\n        const parallelStuff = deps.map(d => d());\n");
  const size = (chunk) => statSync(files.get(`${chunk}.wasm`) ?? join(work, `${chunk}.wasm`)).size;
  js = js.replace(/\[(__chunk_\d+(?:, __chunk_\d+)*)\]/g, (_, list) =>
    `[${list.split(", ").sort((a, b) => size(b.slice(2)) - size(a.slice(2))).join(", ")}]`);
  writeFileSync(path, js);
}

// 4c. The small shared chunks in one file. The splitter writes one shared chunk per combination
// of split points whose code shares a function, and most are a few hundred bytes: the agent
// chunk alone needed 57 files, 36 of them under 2 KB, each a request (and over HTTP/1.1's six
// connections per host, a round trip in line). Those under SMALL bytes are written one after
// another into `small_chunks.wasm` (named .wasm so that hosts serve it compressed, as
// application/wasm; it is never instantiated whole), and the loader takes each one's bytes from
// it: one request, made by the first split point that needs any of them (docs/size.md).
const SMALL = 4096;
const small = new Map();
{
  const names = [...files.keys()].filter((n) => /^chunk_\d+\.wasm$/.test(n) && statSync(files.get(n)).size < SMALL).sort();
  const parts = [];
  let at = 0;
  for (const name of names) {
    const bytes = readFileSync(files.get(name));
    small.set(name, [at, bytes.length]);
    parts.push(bytes);
    at += bytes.length;
    files.delete(name);
  }
  if (small.size > 0) {
    const bundle = join(work, "small_chunks.wasm");
    writeFileSync(bundle, Buffer.concat(parts));
    files.set("small_chunks.wasm", bundle);
    const path = join(work, "__wasm_split.js");
    let js = readFileSync(path, "utf8");
    const head = 'import { initSync } from "./loopscope.js";\n';
    if (!js.startsWith(head)) throw new Error("build-wasm: __wasm_split.js's loader changed; look again at step 4c");
    js = `${head}
// The small shared chunks, one after another in small_chunks.wasm (scripts/build-wasm.mjs, 4c):
// fetched once, each (by its place in the file) taken out as the response its loader expects. A
// failed fetch is not kept, so the next load tries again.
const SMALL = ${JSON.stringify([...small.values()].map(([, length]) => length))};
let smallBytes;
function smallChunk(place) {
    if (smallBytes === undefined) {
        const load = fetch(new URL("./small_chunks.wasm", import.meta.url))
            .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(\`small_chunks.wasm: HTTP \${r.status}\`))));
        load.catch(() => { if (smallBytes === load) smallBytes = undefined; });
        smallBytes = load;
    }
    const at = SMALL.slice(0, place).reduce((a, b) => a + b, 0);
    return smallBytes.then((b) => new Response(b.slice(at, at + SMALL[place]), { headers: { "content-type": "application/wasm" } }));
}
${js.slice(head.length)}`;
    [...small.keys()].forEach((name, place) => {
      const fetchIt = `fetch(new URL("./${name}", import.meta.url))`;
      if (!js.includes(fetchIt)) throw new Error(`build-wasm: no fetch of ${name} in __wasm_split.js; look again at step 4c`);
      js = js.replace(fetchIt, `smallChunk(${place})`);
    });
    writeFileSync(path, js);
  }
}

// 4d. (release) The JS glue and the loader are minified: Trunk minifies only the files it processes,
// and these come from wasm-bindgen and the splitter (−3 KB gzip of first load, docs/size.md).
// Module mode keeps their exports' names, which the page's start script and the chunks import.
if (release) {
  for (const name of ["loopscope.js", "__wasm_split.js"]) {
    const out = join(work, `min-${name}`);
    run("terser", [files.get(name), "--module", "--compress", "passes=2", "--mangle", "--output", out]);
    files.set(name, out);
  }
}

// 5.
const hash = createHash("sha256");
for (const [name, path] of [...files].sort()) hash.update(name).update(readFileSync(path));
const dir = `wasm-${hash.digest("hex").slice(0, 16)}`;
mkdirSync(join(staging, dir), { recursive: true });
for (const [name, path] of files) copyFileSync(path, join(staging, dir, name));

// 6.
const chunks = JSON.parse(readFileSync(join(work, "chunks.json"), "utf8"));
const manifest = {
  dir,
  script: `${dir}/loopscope.js`,
  wasm: `${dir}/loopscope_bg.wasm`,
  wasm_size: statSync(join(staging, dir, "loopscope_bg.wasm")).size,
  // What each split point fetches: its files, the small ones as the one file that holds them.
  chunks: Object.fromEntries(Object.entries(chunks).map(([split, names]) => [
    split,
    [...new Set(names.map((n) => (small.has(`${n}.wasm`) ? "small_chunks" : n)))].map((n) => `${dir}/${n}.wasm`),
  ])),
};
writeFileSync(join(staging, "wasm.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`build-wasm: ${dir}: first chunk ${manifest.wasm_size} B, ${files.size - 3} files of chunks loaded on first use (${small.size} small ones in one)`);

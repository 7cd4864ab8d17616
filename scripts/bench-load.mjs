// Start-up on conference Wi-Fi and on a phone: for a release build, in headless Chromium with
// network emulation, served the way a static host serves it (gzip: the build's precompressed .gz
// when there is one, else gzip on the fly, as GitHub Pages does), cold cache each run:
//   - first contentful paint and time to interactive, and the bytes fetched before interactive
//     (compressed, as they crossed the network), on slow 3G and on 4G;
//   - a feature's first use on 4G (the Workshop panel opened, until its contents show): at once
//     after start, and after the page had been idle (when the chunks have been prefetched);
//   - the repeat visit with no network at all, from the service worker's copy.
//
//   trunk build --release             # or ./scripts/test --from 5
//   node scripts/bench-load.mjs [dist] [runs=3]
//
// "interactive" is the moment the app has mounted (the `loopscope:started` event assets/boot.mjs
// dispatches, or Trunk's `TrunkApplicationStarted` in builds before the wasm was split: the
// header and the composer are in the page and take input); "the loop ready" is the moment the
// agent chunk (the loop and the servers' connections, fetched at once after start) is in
// (`loopscope:agent-ready`; the same as interactive in builds before it was a chunk): a Send
// before then waits for it. Everything runs on 127.0.0.1.
import { chromium } from "@playwright/test";
import { createServer } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, extname, normalize } from "node:path";
import { gzipSync } from "node:zlib";

const DIR = process.argv[2] ?? "dist";
const RUNS = Number(process.argv[3] ?? 3);
const wasmJson = join(DIR, "wasm.json");
const AGENT = existsSync(wasmJson) && "agent" in (JSON.parse(readFileSync(wasmJson, "utf8")).chunks ?? {});
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
  ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml" };
// Issue 21's profiles: slow 3G (400 kbit/s, 400 ms round trip) and 4G (9 Mbit/s down,
// 1.5 Mbit/s up, 170 ms round trip).
const PROFILES = {
  "slow 3G": { offline: false, latency: 400, downloadThroughput: 50_000, uploadThroughput: 50_000 },
  "4G": { offline: false, latency: 170, downloadThroughput: 1_125_000, uploadThroughput: 187_500 },
};

const server = createServer((req, res) => {
  let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  if (path.endsWith("/")) path += "index.html";
  const file = join(DIR, path);
  if (!existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end("not found");
    return;
  }
  const type = TYPES[extname(file)] ?? "application/octet-stream";
  const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
  const body = gzip ? (existsSync(`${file}.gz`) ? readFileSync(`${file}.gz`) : gzipSync(readFileSync(file), { level: 6 })) : readFileSync(file);
  res.writeHead(200, { "content-type": type, "cache-control": "no-cache", ...(gzip ? { "content-encoding": "gzip" } : {}) });
  res.end(body);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

// Chromium's network emulation applies to the page, not to its service worker, whose install
// downloads every file of the build: timed visits block it (a first visit has no worker that
// answers it anyway), and only the repeat visit offline runs with it.
async function open(profile, { worker = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, serviceWorkers: worker ? "allow" : "block" });
  await context.addInitScript(() => {
    const started = () => (window.__started ??= performance.now());
    addEventListener("loopscope:started", started);
    addEventListener("TrunkApplicationStarted", started);
    addEventListener("loopscope:agent-ready", () => (window.__agent ??= performance.now()));
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === "first-contentful-paint") window.__fcp = e.startTime;
    }).observe({ type: "paint", buffered: true });
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", PROFILES[profile]);
  await page.goto(url);
  return { context, page };
}

async function visit(page) {
  await page.waitForFunction(() => window.__started !== undefined && window.__fcp !== undefined, null, { timeout: 180_000 });
  // A build with the loop in the first chunk has no agent chunk: the loop is ready with the page.
  if (AGENT) await page.waitForFunction(() => window.__agent !== undefined, null, { timeout: 180_000 });
  return page.evaluate(() => {
    const start = window.__started;
    const nav = performance.getEntriesByType("navigation")[0];
    const before = performance.getEntriesByType("resource").filter((r) => r.responseEnd <= start);
    const bytes = [nav, ...before].reduce((n, r) => n + (r.encodedBodySize || 0), 0);
    return { paint: window.__fcp, interactive: start, loop: window.__agent ?? start, bytes };
  });
}

/** Opens the Workshop panel and times it until its contents show. */
async function firstUse(page) {
  const t0 = await page.evaluate(() => performance.now());
  await page.getByText("Workshop", { exact: true }).click();
  await page.getByRole("heading", { name: "Breakpoints" }).waitFor({ timeout: 60_000 });
  return (await page.evaluate(() => performance.now())) - t0;
}

const results = { "slow 3G": [], "4G": [] };
const use = { atOnce: [], afterIdle: [] };
const offline = [];
try {
  for (let i = 0; i < RUNS; i++) {
    for (const profile of Object.keys(PROFILES)) {
      const { context, page } = await open(profile);
      results[profile].push(await visit(page));
      if (profile === "4G") use.atOnce.push(await firstUse(page));
      await context.close();
      if (profile === "4G") {
        // The repeat visit, offline: only a page with a service worker's copy opens at all.
        const { context, page } = await open(profile, { worker: true });
        await visit(page);
        const hasWorker = await page.evaluate(async () => {
          if (!("serviceWorker" in navigator)) return false;
          // Registered once the loop is in (index.html), so wait for it rather than ask at once.
          const ready = await Promise.race([navigator.serviceWorker.ready.then(() => true), new Promise((r) => setTimeout(() => r(false), 60_000))]);
          if (!ready) return false;
          for (let t = 0; t < 600; t++) {
            for (const k of await caches.keys()) if ((await (await caches.open(k)).keys()).some((r) => r.url.endsWith("_bg.wasm"))) return true;
            await new Promise((r) => setTimeout(r, 200));
          }
          return false;
        });
        if (hasWorker) {
          await context.setOffline(true);
          await page.goto(url);
          offline.push(await visit(page));
        }
        await context.close();
      }
    }
    // The first use once the page has been idle for 5 s (the chunks prefetched by then).
    const { context, page } = await open("4G");
    await visit(page);
    await page.waitForTimeout(5_000);
    use.afterIdle.push(await firstUse(page));
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "—");
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : "—");
console.log(`${DIR}, gzip, cold cache, ${RUNS} runs, medians:`);
for (const [profile, rs] of Object.entries(results)) {
  console.log(`  ${profile.padEnd(8)} first contentful paint ${s(median(rs.map((r) => r.paint)))}, interactive ${s(median(rs.map((r) => r.interactive)))}, the loop ready ${s(median(rs.map((r) => r.loop)))}, ${Math.round(median(rs.map((r) => r.bytes)) / 1000)} KB fetched before interactive`);
}
console.log(`  first use of the Workshop panel on 4G: ${ms(median(use.atOnce))} right after start, ${ms(median(use.afterIdle))} after 5 s idle`);
console.log(offline.length
  ? `  repeat visit, offline: first contentful paint ${s(median(offline.map((r) => r.paint)))}, interactive ${s(median(offline.map((r) => r.interactive)))}`
  : "  repeat visit, offline: the page does not open (no service worker)");

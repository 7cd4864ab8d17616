// Start-up on conference Wi-Fi: first paint and time to interactive of a release build under
// Chrome's "Slow 3G" profile (2 s latency, 50 KB/s down), in headless Chromium, served the way
// a static host serves it (gzip: the build's precompressed .gz when there is one, else gzip on
// the fly, as GitHub Pages does). Then the repeat visit with no network at all, from the
// service worker's copy.
//
//   trunk build --release             # or ./scripts/test --from 5
//   node scripts/bench-load.mjs [dist] [runs=3]
//
// "interactive" is the moment the app has mounted (the `loopscope:started` event assets/boot.mjs dispatches; the
// header and the composer are in the page and take input). Everything runs on 127.0.0.1.
import { chromium } from "@playwright/test";
import { createServer } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, extname, normalize } from "node:path";
import { gzipSync } from "node:zlib";

const DIR = process.argv[2] ?? "dist";
const RUNS = Number(process.argv[3] ?? 3);
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
  ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml" };

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
const SLOW_3G = { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 };

async function visit(context, page) {
  await page.waitForFunction(() => window.__started !== undefined && window.__fcp !== undefined, null, { timeout: 120_000 });
  return page.evaluate(() => ({ paint: window.__fcp, interactive: window.__started }));
}

const first = [];
const offline = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    await context.addInitScript(() => {
      addEventListener("loopscope:started", () => (window.__started = performance.now()));
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.name === "first-contentful-paint") window.__fcp = e.startTime;
      }).observe({ type: "paint", buffered: true });
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", SLOW_3G);
    await page.goto(url);
    first.push(await visit(context, page));
    // The repeat visit, offline: only a page with a service worker's copy opens at all.
    const hasWorker = await page.evaluate(async () => {
      if (!("serviceWorker" in navigator) || !(await navigator.serviceWorker.getRegistration())) return false;
      await navigator.serviceWorker.ready;
      for (let t = 0; t < 600; t++) {
        const keys = await caches.keys();
        for (const k of keys) if ((await (await caches.open(k)).keys()).some((r) => r.url.endsWith("_bg.wasm"))) return true;
        await new Promise((r) => setTimeout(r, 200));
      }
      return false;
    });
    if (hasWorker) {
      await context.setOffline(true);
      await page.goto(url);
      offline.push(await visit(context, page));
    }
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "—");
console.log(`${DIR}, Slow 3G (2 s latency, 50 KB/s), gzip, ${RUNS} runs, medians:`);
console.log(`  first visit:   first contentful paint ${s(median(first.map((r) => r.paint)))}, interactive ${s(median(first.map((r) => r.interactive)))}`);
console.log(offline.length
  ? `  repeat visit, offline: first contentful paint ${s(median(offline.map((r) => r.paint)))}, interactive ${s(median(offline.map((r) => r.interactive)))}`
  : "  repeat visit, offline: the page does not open (no service worker)");

// Long-session benchmark of the page (issue 5), against the release build in dist/:
//
//   ./scripts/test --from 4     # (or trunk build --release) so dist/ is current
//   node scripts/bench-timeline.mjs [turns=200]
//
// In demo mode (no key, no server: the whole loop runs in the page), it sends `turns` messages
// back to back while recording every animation frame, until the trace holds well over 10,000
// events; then scrolls the timeline from top to bottom and back with the mouse wheel, again
// recording frames; then reports the JS heap and the wasm memory after the session.
// Frame times are requestAnimationFrame intervals in headless Chromium (software rendering).
import { chromium } from "@playwright/test";
import { spawn } from "node:child_process";

const TURNS = Number(process.argv[2] ?? 200);
const PORT = 4199;
const server = spawn("python3", ["-m", "http.server", String(PORT), "--bind", "127.0.0.1", "--directory", "dist"], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 800));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-precise-memory-info"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.addInitScript(() => {
    addEventListener("TrunkApplicationStarted", (e) => (window.__wasm = e.detail.wasm));
    window.__frames = [];
    let last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.getByLabel("Demo model (no key)").check();
  const composer = page.getByRole("textbox", { name: "Message", exact: true });
  const questions = ["What's the weather in Tokyo, and what is 17 * 23?", "What time is it (UTC offset +09:00)?", "What is (2 + 3) * 4?"];

  const stats = (frames) => {
    const s = [...frames].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return `${s.length} frames: median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms, over 16.7 ms: ${s.filter((f) => f > 16.7 + 1).length}`;
  };

  const started = Date.now();
  await page.evaluate(() => (window.__frames = []));
  for (let i = 0; i < TURNS; i++) {
    await composer.fill(questions[i % questions.length]);
    await composer.press("Enter");
    await page.getByRole("button", { name: "Stop", exact: true }).waitFor({ state: "hidden", timeout: 30_000 });
  }
  const appendFrames = await page.evaluate(() => window.__frames);
  const counts = await page.locator(".counts").innerText();
  console.log(`appended over ${TURNS} turns in ${((Date.now() - started) / 1000).toFixed(0)} s: ${counts}`);
  console.log(`frames while appending: ${stats(appendFrames)}`);

  const list = page.getByRole("listbox", { name: /Timeline events/ });
  await list.evaluate((el) => (el.scrollTop = 0));
  await list.hover();
  await page.evaluate(() => (window.__frames = []));
  for (let i = 0; i < 300; i++) await page.mouse.wheel(0, 400);
  for (let i = 0; i < 300; i++) await page.mouse.wheel(0, -400);
  await page.waitForTimeout(300);
  const scrollFrames = await page.evaluate(() => window.__frames);
  console.log(`frames while scrolling 600 wheel steps: ${stats(scrollFrames)}`);

  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  await cdp.send("HeapProfiler.collectGarbage");
  const metrics = (await cdp.send("Performance.getMetrics").catch(() => ({ metrics: [] }))).metrics;
  const heap = await page.evaluate(() => ({
    js: performance.memory?.usedJSHeapSize,
    wasm: window.__wasm?.memory?.buffer?.byteLength,
  }));
  const mb = (b) => (b / 1e6).toFixed(1);
  console.log(`after ${TURNS} turns: JS heap ${mb(heap.js)} MB, wasm memory ${mb(heap.wasm)} MB, DOM nodes ${metrics.find((m) => m.name === "Nodes")?.value ?? "?"}`);
} finally {
  await browser.close();
  server.kill();
}

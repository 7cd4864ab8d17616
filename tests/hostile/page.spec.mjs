// The page's own defences: its service worker keeps only the build's own files (a JSON the user
// opens, or any other file on the origin, never lands in the offline copy), and its storage
// holds nothing a stranger gave it.
import { test, expect } from "@playwright/test";
import { appMounted, openApp } from "../e2e/support.mjs";

test("the service worker caches this build's files and nothing else", async ({ page }) => {
  await openApp(page, "./?lesson=lessons/four-phases.json");
  await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state);
  // The build's list, as the build wrote it into sw.js.
  const listed = await page.evaluate(async () => {
    const text = await (await fetch("sw.js")).text();
    return JSON.parse(text.match(/const BUILD = (\{.*\});/)[1]).files.map((f) => new URL(f, location.href).pathname);
  });
  expect(listed).toContain(new URL("./", page.url()).pathname);
  expect(listed.some((p) => p.endsWith("_bg.wasm"))).toBe(true);
  // Same-origin requests that are not the build's: answered by the network alone, never kept.
  await page.evaluate(async () => {
    await fetch("not-a-build-file.json").catch(() => {});
    await fetch("lessons/four-phases.json?evil=1").catch(() => {});
  });
  await expect.poll(async () => page.evaluate(async () => {
    let n = 0;
    for (const name of await caches.keys()) n += (await (await caches.open(name)).keys()).length;
    return n;
  })).toBeGreaterThan(3);
  const cached = await page.evaluate(async () => {
    const all = [];
    for (const name of await caches.keys()) {
      for (const r of await (await caches.open(name)).keys()) all.push(new URL(r.url).pathname + new URL(r.url).search);
    }
    return all;
  });
  const stray = cached.filter((p) => !listed.includes(p));
  expect(stray, `cached outside the build's list: ${stray}`).toEqual([]);
});

test("saved servers are read as a stranger's: an address the URL policy refuses is left out, and said", async ({ page, context }) => {
  const attack = { dialogs: [] };
  page.on("dialog", async (d) => { attack.dialogs.push(d.message()); await d.dismiss(); });
  await openApp(page);
  // Another page on this origin writes the list (as any page of a shared origin could).
  await page.evaluate(() => localStorage.setItem("loopscope.servers", JSON.stringify([
    { url: "javascript:alert(document.domain)", label: "evil", header_names: [] },
    { url: "http://127.0.0.1:18499/mcp?token=abc123", label: "mine", header_names: [] },
  ])));
  await page.reload();
  await appMounted(page);
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(/A saved server \(javascript:alert\(document\.domain\)\) was left out\./)).toBeVisible();
  await expect(page.getByRole("article", { name: "evil" })).toHaveCount(0);
  // An ordinary address is kept (nothing listens there: it fails to connect, on loopback), its
  // token moved out of it and never shown.
  await expect(page.getByRole("article", { name: "mine" }).locator(".server-url")).toHaveText("http://127.0.0.1:18499/mcp");
  expect(await page.content()).not.toContain("abc123");
  // The same from another tab, through the storage event.
  const other = await context.newPage();
  await openApp(other);
  await other.evaluate(() => localStorage.setItem("loopscope.servers", JSON.stringify([
    { url: "data:text/html,<script>alert(1)</script>", label: "evil2", header_names: [] },
  ])));
  await expect(chat.getByText(/A saved server \(data:text\/html,.*\) was left out\./)).toBeVisible();
  await expect(page.getByRole("article", { name: "evil2" })).toHaveCount(0);
  expect(attack.dialogs).toEqual([]);
});

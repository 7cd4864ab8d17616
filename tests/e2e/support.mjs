// Shared helpers for the end-to-end specs: a page object for the playground.
import { expect } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { URLS } from "./fixtures.mjs";

export const SCREENSHOTS = new URL("../../target/e2e/screenshots/", import.meta.url).pathname;
mkdirSync(SCREENSHOTS, { recursive: true });

/** Saves a screenshot named after the state it shows. */
export async function snap(page, name) {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png` });
}

/**
 * Collects console errors and uncaught exceptions; call `expectNone()` at the end of a test.
 *
 * The one error a browser logs by design is the 2026-07-28 negotiation probe's: a 2025-era
 * server answers `server/discover` with a 4xx (or its CORS rules refuse the probe's new
 * headers), the client falls back to `initialize`, and Chromium logs the failed fetch anyway.
 * Those are counted per URL and forgiven one for one; nothing else is.
 */
export function watchConsole(page, allowed = []) {
  const errors = [];
  const probes = new Map(); // url → console lines a failed probe may still account for
  const forgive = (url) => {
    const n = probes.get(url) ?? 0;
    if (n > 0) probes.set(url, n - 1);
    return n > 0;
  };
  const probed = (request) => request.method() === "POST" && (request.postData() ?? "").includes('"method":"server/discover"');
  // A failed probe logs at most two lines (a CORS refusal, then the failed load): counted when
  // it is sent, because the lines can come before the failure event; taken back if it succeeds.
  page.on("request", (r) => probed(r) && probes.set(r.url(), (probes.get(r.url()) ?? 0) + 2));
  page.on("response", (r) => probed(r.request()) && r.status() < 400 && probes.set(r.url(), Math.max(0, (probes.get(r.url()) ?? 0) - 2)));
  const keep = (t, url) => {
    if (allowed.some((a) => t.includes(a))) return;
    const cors = t.match(/^Access to fetch at '([^']+)'.*preflight/);
    if ((cors && forgive(cors[1])) || (url && t.startsWith("Failed to load resource") && forgive(url))) return;
    errors.push(t);
  };
  page.on("console", (m) => m.type() === "error" && keep(m.text(), m.location()?.url));
  page.on("pageerror", (e) => keep(String(e)));
  return { errors, expectNone: () => expect(errors, errors.join("\n")).toEqual([]) };
}

/** Opens the app (at `path`, relative to the sub-path it is served under) and waits until the
 * Leptos UI has mounted: its banner's heading, not the loading screen's (which has the same
 * words and no banner, and is on screen until the first chunk starts). */
export async function openApp(page, path = "./") {
  await page.goto(path);
  await appMounted(page);
}

/** Waits until the Leptos UI has mounted (see `openApp`). */
export async function appMounted(page, options = {}) {
  await expect(page.getByRole("banner").getByRole("heading", { level: 1, name: "Loopscope" })).toBeVisible(options);
}

/** Scripts the fake Messages API's answers for requests made with `key`. */
export async function script(key, steps) {
  const r = await fetch(`${URLS.claude}/_fake/script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, steps }),
  });
  expect(r.status).toBe(200);
}

/** The Messages API request bodies the fake received with `key`. */
export async function requests(key) {
  const r = await fetch(`${URLS.claude}/_fake/requests?key=${key}`);
  return (await r.json()).map((x) => x.body);
}

export const reply = (...content) => ({ reply: { content } });
export const toolUse = (name, input) => ({ tool_use: { name, input } });

/** Points the page at the fake Messages API with `key`. */
export async function useFakeClaude(page, key) {
  await page.getByLabel("API key", { exact: true }).fill(key);
  await page.getByText("Model and request").click();
  const base = page.getByLabel("Base URL");
  await base.fill(URLS.claude);
  await base.press("Tab");
  await page.getByText("Model and request").click();
}

/** Adds a server and waits for the wanted status ("connected" or "failed"). */
export async function addServer(page, url, label, status = "connected") {
  await page.getByLabel("MCP server URL").fill(url);
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill(label);
  await page.getByRole("form", { name: "Add an MCP server" }).getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Label and headers").click();
  const card = page.getByRole("article", { name: label });
  await expect(card.getByText(status, { exact: true })).toBeVisible({ timeout: 20_000 });
  return card;
}

/** Sends a chat message and waits for the turn to end. */
export async function ask(page, text) {
  await page.getByRole("textbox", { name: "Message", exact: true }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
}

/** Opens the details of a timeline row, finding it first (see `timelineRow`). */
export async function openRow(page, name) {
  await expect(async () => {
    const row = await timelineRow(page, name);
    await row.click({ timeout: 2_000 });
    await expect(page.getByRole("dialog").first()).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
}

/** Waits until the page has drawn `n` more animation frames (what the timeline redraws on). */
export async function frames(page, n = 2) {
  await page.evaluate(
    (n) => new Promise((done) => {
      const next = (left) => (left === 0 ? done() : requestAnimationFrame(() => next(left - 1)));
      next(n);
    }),
    n,
  );
}

/**
 * Finds a timeline row by accessible name, scrolling the virtualised list (bounded) until it
 * is rendered.
 */
export async function timelineRow(page, name) {
  const list = page.getByRole("listbox", { name: /Timeline events/ });
  const row = list.getByRole("option", { name }).first();
  await list.evaluate((el) => (el.scrollTop = 0));
  // Rows are drawn on the next animation frame: look before scrolling on.
  await frames(page);
  for (let i = 0; i < 60; i++) {
    if (await row.isVisible()) return row;
    const done = await list.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop += el.clientHeight * 0.8;
      return el.scrollTop === before;
    });
    await frames(page);
    if (done && !(await row.isVisible())) break;
  }
  await expect(row).toBeVisible();
  return row;
}

/**
 * Visible text that reads below 4.5:1 against its background (WCAG AA for normal text), as
 * "ratio tag.class "text"" lines; disabled and inert parts are exempt, as WCAG allows.
 */
export async function lowContrast(page) {
  return page.evaluate(() => {
    const rgb = (s) => s.match(/[\d.]+/g).slice(0, 4).map(Number);
    const lum = ([r, g, b]) =>
      [r, g, b]
        .map((c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (el) => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.length < 4 || c[3] > 0) return c;
      }
      return [255, 255, 255];
    };
    const low = [];
    for (const el of document.querySelectorAll("body *")) {
      const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!ownText || el.getClientRects().length === 0 || el.closest(":disabled, [inert], .disabled")) continue;
      const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      if (ratio < 4.5) low.push(`${ratio.toFixed(2)} ${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 40)}"`);
    }
    return [...new Set(low)];
  });
}

// What every hostile spec watches: no script may run on the page's origin (no dialog, no CSP
// violation but the ones a spec provokes), no window may open that the user did not ask for,
// and what the hostile servers saw (tests/hostile/server.mjs).
import { expect } from "@playwright/test";
import { URLS } from "../e2e/fixtures.mjs";

/** What the hostile servers saw: tools/call params, what reached the other origin, GET counts. */
export async function seen() {
  return (await fetch(URLS.hostile("/_seen"))).json();
}

export async function reset() {
  await fetch(URLS.hostile("/_reset"));
}

/**
 * Watches the page as the attacker's target: dialogs (alert() from a `javascript:` URL), CSP
 * violations, windows opened, and the wasm memory (from Trunk's start event). Call before
 * opening the app.
 */
export async function watchAttack(page) {
  const dialogs = [];
  const popups = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  page.on("popup", (p) => popups.push(p));
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    addEventListener("TrunkApplicationStarted", (e) => (window.__wasm = e.detail.wasm));
  });
  return {
    dialogs,
    popups,
    /** No script ran: no dialog, no CSP violation. */
    async expectNoScript() {
      expect(dialogs, "a dialog means script ran on the page's origin").toEqual([]);
      expect(await page.evaluate(() => window.__csp)).toEqual([]);
    },
    /** The wasm memory now, in bytes. */
    memory: () => page.evaluate(() => window.__wasm?.memory?.buffer?.byteLength ?? 0),
  };
}

/**
 * Time from a click to what it shows, while something else is going on: the Settings key's
 * Show/Hide button, which flips at once when the page is responsive.
 */
export async function clickLatency(page) {
  const button = page.getByRole("button", { name: /^(Show|Hide) API key$/ });
  const before = await button.getAttribute("aria-pressed");
  const started = Date.now();
  await button.click();
  await expect(button).not.toHaveAttribute("aria-pressed", before, { timeout: 5_000 });
  return Date.now() - started;
}

/** Sets one limit in Settings → Limits. */
export async function setLimit(page, label, value) {
  await page.getByText("Limits", { exact: true }).click();
  const field = page.getByLabel(label);
  await field.fill(String(value));
  await field.press("Tab");
  await page.getByText("Limits", { exact: true }).click();
}

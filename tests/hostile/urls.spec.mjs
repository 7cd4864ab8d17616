// A server's authorization metadata names the sign-in page. A hostile one names a script, a
// data: document, a plain-http page off this machine, or a URL crafted so that a parser and the
// browser disagree (mcp-remote's CVE-2025-6514 was this attack). Every one of them must end in a
// clear refusal on the card and the timeline, with no window opened and no script run. A
// sign-in page on another host than the authorization server's is allowed, named, and opened
// only from the user's click, with no way back into the page.
import { test, expect } from "@playwright/test";
import { URLS } from "../e2e/fixtures.mjs";
import { openApp, snap, timelineRow } from "../e2e/support.mjs";
import { watchAttack } from "./support.mjs";

const REFUSED = {
  javascript: /the scheme "javascript:" is never opened or fetched/,
  "javascript-case": /the scheme "javascript:" is never opened or fetched/,
  "javascript-space": /holds a space, which URLs from outside may not/,
  "javascript-tab": /holds a tab, which URLs from outside may not/,
  data: /the scheme "data:" is never opened or fetched/,
  "plain-http": /plain http is allowed only for this machine .* evil\.example needs https/,
  userinfo: /carries a user name or password before the host/,
  backslash: /holds a backslash/,
};

async function addServer(page, url, label) {
  await page.getByLabel("MCP server URL").fill(url);
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill(label);
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Label and headers").click();
  return page.getByRole("article", { name: label });
}

for (const [variant, why] of Object.entries(REFUSED)) {
  test(`an authorization_endpoint that is ${variant}: refused, named, nothing opens`, async ({ page }) => {
    const attack = await watchAttack(page);
    await openApp(page);
    const card = await addServer(page, URLS.hostile(`/auth/${variant}/mcp`), variant);
    await expect(card.getByText("failed", { exact: true })).toBeVisible({ timeout: 20_000 });
    const failure = card.locator(".failure").first();
    await expect(failure).toContainText("authorization layer");
    await expect(failure).toContainText("authorization server metadata: its authorization_endpoint");
    await expect(failure).toContainText(why);
    // The card never offered a sign-in to click.
    await expect(card.getByRole("button", { name: "Open the sign-in page" })).toHaveCount(0);
    await timelineRow(page, /Note: authorization failed · authorization server metadata: its authorization_endpoint/);
    if (variant === "javascript") {
      await card.scrollIntoViewIfNeeded();
      await snap(page, "hostile-javascript-endpoint");
    }
    expect(attack.popups).toEqual([]);
    await attack.expectNoScript();
    expect(await page.evaluate(() => document.domain)).toBe("127.0.0.1");
  });
}

test("a sign-in page on another host: named with both hosts before anything opens, opened only by a click, with no opener", async ({ page }) => {
  const attack = await watchAttack(page);
  await openApp(page);
  const card = await addServer(page, URLS.hostile("/auth/other-host/mcp"), "elsewhere");
  await expect(card.getByText("This server wants you to sign in")).toBeVisible({ timeout: 20_000 });
  await expect(card.locator(".sign-in-host")).toHaveText("localhost:18440");
  await expect(card.getByText(/The sign-in page is on localhost:18440, not on 127\.0\.0\.1:18440, the authorization server this MCP server named/)).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await snap(page, "hostile-other-host-sign-in");
  // Nothing opened by itself, however long discovery took.
  await page.waitForTimeout(1000);
  expect(attack.popups).toEqual([]);
  const opened = page.waitForEvent("popup");
  await card.getByRole("button", { name: "Open the sign-in page" }).click();
  const popup = await opened;
  await expect(popup.locator("#opener")).toHaveText("no opener");
  expect(await popup.evaluate(() => window.opener)).toBeNull();
  await expect(card.getByText(/Your turn: sign in on localhost:18440/)).toBeVisible();
  await card.getByRole("button", { name: "Cancel sign-in" }).click();
  await expect(card.getByText(/You cancelled the sign-in/).first()).toBeVisible();
  await popup.close();
  await attack.expectNoScript();
});

test("the page's own Content-Security-Policy is in force: an injected inline script does not run", async ({ page }) => {
  const attack = await watchAttack(page);
  await openApp(page);
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
  expect(policy).toContain("default-src 'none'");
  expect(policy).toMatch(/script-src 'self' 'wasm-unsafe-eval'( 'sha256-[^']+')+;/);
  expect(policy).not.toContain("unsafe-inline");
  // As if an attacker had got markup into the page: the policy stops it.
  const ran = await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.__pwned = true";
    document.body.append(s);
    return window.__pwned === true;
  });
  expect(ran).toBe(false);
  expect((await page.evaluate(() => window.__csp)).some((v) => v.startsWith("script-src"))).toBe(true);
  expect(attack.dialogs).toEqual([]);
});

test("a lesson link that names a script, a data: document or plain http off this machine: refused, said, nothing fetched", async ({ page }) => {
  const attack = await watchAttack(page);
  const asked = [];
  page.on("request", (r) => asked.push(r.url()));
  for (const [link, why] of [
    ["javascript:alert(document.domain)", /the scheme "javascript:" is never opened or fetched/],
    ["JaVaScRiPt:alert(document.domain)", /the scheme "javascript:" is never opened or fetched/],
    ["data:application/json,{}", /the scheme "data:" is never opened or fetched/],
    ["http://evil.example/lesson.json", /plain http is allowed only for this machine/],
    ["https://user:pw@evil.example/lesson.json", /carries a user name or password/],
  ]) {
    await openApp(page, `./?lesson=${encodeURIComponent(link)}`);
    await expect(page.getByRole("alert").filter({ hasText: "The lesson cannot be opened" })).toContainText(why);
  }
  await snap(page, "hostile-lesson-link-refused");
  expect(asked.filter((u) => !u.startsWith("http://127.0.0.1"))).toEqual([]);
  expect(attack.popups).toEqual([]);
  await attack.expectNoScript();
});

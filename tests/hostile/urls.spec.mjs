// A server's authorization metadata names the sign-in page. A hostile one names a script, a
// data: document, a plain-http page off this machine, or a URL crafted so that a parser and the
// browser disagree (mcp-remote's CVE-2025-6514 was this attack). Every one of them must end in a
// clear refusal on the card and the timeline, with no window opened and no script run. A
// sign-in page on another host than the authorization server's is allowed, named, and opened
// only from the user's click, with no way back into the page.
import { test, expect } from "@playwright/test";
import { URLS } from "../e2e/fixtures.mjs";
import { openApp, snap, timelineRow } from "../e2e/support.mjs";
import { reset, seen, watchAttack } from "./support.mjs";

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

// `http://127.0.0.1:PORT\@127.0.0.1:OTHER/…`: a parser that splits user info first reads host
// 127.0.0.1:OTHER with Basic credentials "127.0.0.1:PORT\"; the browser reads host
// 127.0.0.1:PORT and the path /@127.0.0.1:OTHER/…. The policy reads it with the browser's
// parser, so the card, the check and the connection all go where the browser would.
test("an address two parsers read differently connects where the browser reads it, typed or restored", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  const port = new URL(URLS.hostile("/")).port;
  const otherPort = new URL(URLS.hostileOther).port;
  const typed = `http://127.0.0.1:${port}\\@127.0.0.1:${otherPort}/plain/mcp`;
  const card = await addServer(page, typed, "split");
  const where = `http://127.0.0.1:${port}/@127.0.0.1:${otherPort}/plain/mcp`;
  await expect(card.locator(".server-url")).toHaveText(where);
  await expect(card.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  await card.scrollIntoViewIfNeeded();
  await snap(page, "hostile-backslash-address");
  let s = await seen();
  expect(s.other, "nothing reaches the host written after the backslash").toEqual([]);
  expect(s.plain.length).toBeGreaterThan(0);
  expect(s.plain.every((r) => r.authorization === null), "no Basic credentials made of the host").toBe(true);
  // The same text restored from storage, as another page of this origin could write it.
  await page.evaluate((url) => localStorage.setItem("loopscope.servers", JSON.stringify([{ url, label: "restored", header_names: [] }])), typed);
  await reset();
  await page.reload();
  const restored = page.getByRole("article", { name: "restored" });
  await expect(restored.locator(".server-url")).toHaveText(where);
  await expect(restored.getByText("connected", { exact: true })).toBeVisible({ timeout: 20_000 });
  s = await seen();
  expect(s.other).toEqual([]);
  expect(s.plain.every((r) => r.authorization === null)).toBe(true);
  await attack.expectNoScript();
});

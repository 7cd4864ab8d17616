// Secrets stay with their owner: a password or key written into a server's address leaves the
// address (the page, its storage and an export never hold it, the server still gets it), and a
// request that carries the user's headers never follows a redirect to wherever it points. A
// request that carries no secret may follow one, and the timeline shows where it went.
import { test, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { URLS } from "../e2e/fixtures.mjs";
import { addServer, openApp, snap, timelineRow } from "../e2e/support.mjs";
import { reset, seen, watchAttack } from "./support.mjs";

const storage = (page) => page.evaluate(() => JSON.stringify({ ...localStorage }));

async function exported(page) {
  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  const downloading = page.waitForEvent("download");
  await workshop.getByRole("button", { name: "Export this session" }).click();
  const text = readFileSync(await (await downloading).path(), "utf8");
  await workshop.getByText("Workshop").click();
  return text;
}

test("a user name, a password and an api_key in a server's address: moved out, masked everywhere, still sent", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  const typed = "http://ann:s3cret-pass-789@127.0.0.1:18440/plain/mcp?api_key=SECRET-KEY-123&team=7";
  const card = await addServer(page, typed, "plain");
  await expect(card.locator(".server-url")).toHaveText("http://127.0.0.1:18440/plain/mcp?team=7");
  await expect(page.getByText(/The address held secrets: Authorization, \?api_key now go with the headers/)).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await snap(page, "hostile-secrets-moved");
  // The server got them, as the user meant.
  const plain = (await seen()).plain;
  expect(plain.length).toBeGreaterThan(0);
  expect(plain.every((r) => r.url.includes("api_key=SECRET-KEY-123"))).toBe(true);
  expect(plain.every((r) => r.authorization === `Basic ${Buffer.from("ann:s3cret-pass-789").toString("base64")}`)).toBe(true);
  // Nowhere else: not on the page (timeline rows and their details included), not in storage,
  // not in an export.
  await timelineRow(page, /initialize/);
  for (const secret of ["SECRET-KEY-123", "s3cret-pass-789", Buffer.from("ann:s3cret-pass-789").toString("base64")]) {
    expect(await page.content()).not.toContain(secret);
    expect(await storage(page)).not.toContain(secret);
  }
  const file = await exported(page);
  expect(file).toContain("127.0.0.1:18440/plain/mcp");
  for (const secret of ["SECRET-KEY-123", "s3cret-pass-789"]) expect(file).not.toContain(secret);
  // After a reload the card asks for them again (they were not remembered).
  await page.reload();
  const again = page.getByRole("article", { name: "plain" });
  await expect(again.getByText(/whose values were not saved/)).toBeVisible();
  await expect(again.getByLabel("Headers, one per line")).toHaveValue("Authorization: \n?api_key: ");
  await attack.expectNoScript();
});

test("a redirect answering a request that carries the user's headers is not followed, and nothing reaches the other origin", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  await page.getByLabel("MCP server URL").fill(URLS.hostile("/redirect/mcp"));
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill("moving");
  await page.getByLabel("Headers, one per line (?name: value for a query parameter)").fill("X-Api-Key: SECRET-REDIRECT-456");
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Label and headers").click();
  const card = page.getByRole("article", { name: "moving" });
  await expect(card.getByText("failed", { exact: true })).toBeVisible({ timeout: 20_000 });
  const failure = card.locator(".failure").first();
  await expect(failure).toContainText("HTTP layer");
  await expect(failure).toContainText("the server answered with a redirect, not followed: this request carries your headers or token");
  await failure.getByText("What to check").click();
  await expect(failure).toContainText("Use the address the server redirects to");
  await card.scrollIntoViewIfNeeded();
  await snap(page, "hostile-redirect-refused");
  const other = (await seen()).other;
  expect(other.filter((r) => JSON.stringify(r.headers).includes("SECRET-REDIRECT-456"))).toEqual([]);
  expect(other.filter((r) => r.method !== "OPTIONS")).toEqual([]);
  await attack.expectNoScript();
});

test("a redirect answering a request with no secret is followed, and the timeline shows where the answer came from", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  await addServer(page, URLS.hostile("/redirect/mcp"), "moved");
  await timelineRow(page, /Note: followed a redirect · to http:\/\/127\.0\.0\.1:18441\/mcp/);
  expect((await seen()).other.some((r) => r.method === "POST")).toBe(true);
  await attack.expectNoScript();
});

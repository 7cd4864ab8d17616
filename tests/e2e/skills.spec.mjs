// Skills (SEP-2640) in the loop, in the page: the demo server declares one skill, phase 1 offers
// it to the demo model by name and description through the page's load_skill, and the call reads
// SKILL.md from the server, verified. The code for it comes with the explore chunk: blocked, the
// turn goes on without skills and says why.
import { test, expect } from "@playwright/test";
import { ask, openApp, openRow, snap, timelineRow, watchConsole } from "./support.mjs";

async function demoWithServer(page) {
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  await page.getByRole("button", { name: "Add the demo server" }).click();
  await expect(page.getByRole("article", { name: "demo" }).getByText("connected", { exact: true })).toBeVisible();
}

test("phase 1 offers the demo server's skill by name, and load_skill reads it verified", async ({ page }) => {
  const console = watchConsole(page);
  await demoWithServer(page);
  // The card says the server declares skills, and what the page does with them.
  const card = page.getByRole("article", { name: "demo" });
  await expect(card.getByText("tools, resources, prompts; extensions: io.modelcontextprotocol/skills (skills: offered to Claude in phase 1)")).toBeVisible();
  await ask(page, 'Load the "tool-results" skill.');
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText("→ local function load_skill")).toBeVisible();
  await expect(chat.getByText(/load_skill said: ---\s*name: tool-results/)).toBeVisible();
  await expect(chat.getByText("The demo model finished its answer (end_turn).")).toBeVisible();

  // Phase 1 shows what was offered and in what form: two page functions, the skill named.
  await openRow(page, /tools array: \d+ tools/);
  const detail = page.getByRole("dialog").first();
  await expect(detail.getByText(/load_skill\s+←\s+local function/)).toBeVisible();
  await expect(detail.getByText(/read_skill_file\s+←\s+local function/)).toBeVisible();
  await expect(detail.getByText(/note: offers 1 skill\(s\) by name and description only, nothing of them read yet: tool-results of "demo"/).first()).toBeVisible();
  await snap(page, "skills-phase-one");
  await page.keyboard.press("Escape");

  // The read is a real resources/read on the demo server's lane.
  await expect(await timelineRow(page, /skills\/list #\d+/)).toBeVisible();
  const read = await timelineRow(page, /resources\/read #\d+/);
  await read.scrollIntoViewIfNeeded();
  await snap(page, "skills-timeline");
  console.expectNone();
});

test.describe("the code for skills loaded on first use", () => {
  // Without the service worker, so the page's own requests can be held back.
  test.use({ serviceWorkers: "block" });

  test("the chunk with the skills code does not arrive: the turn goes on without skills and says why", async ({ page }) => {
    const console = watchConsole(page, ["split_explore", "Failed to load resource", "Failed to fetch", "net::ERR_FAILED"]);
    await page.route(/split_explore\.wasm$/, (route) => route.abort("failed"));
    await demoWithServer(page);
    await ask(page, "Search the notes for \"jsonrpc\".");
    const chat = page.getByRole("log", { name: "Conversation" });
    await expect(chat.getByText(/Skills are left out of this turn: the page's code for skills did not arrive/)).toBeVisible();
    await expect(chat.getByText(/demo_search_notes said: /)).toBeVisible();
    await chat.getByText(/Skills are left out of this turn/).scrollIntoViewIfNeeded();
    await snap(page, "skills-chunk-missing");

    // Once it can load, the next turn offers the skill.
    await page.unroute(/split_explore\.wasm$/);
    await ask(page, 'Load the "tool-results" skill.');
    await expect(chat.getByText(/load_skill said: ---\s*name: tool-results/)).toBeVisible();
    console.expectNone();
  });
});

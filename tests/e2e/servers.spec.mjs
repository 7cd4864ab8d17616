// Adding servers: each keeps a name of its own, and the timeline's rows stay on their lane as
// more servers appear.
import { test, expect } from "@playwright/test";
import { addServer, openApp, snap, timelineRow, watchConsole } from "./support.mjs";
import { URLS } from "./fixtures.mjs";

const addForm = (page) => page.getByRole("form", { name: "Add an MCP server" });

/** Horizontal distance between where a row's arrow ends on the right and the centre of a lane. */
async function offLane(page, row, lane) {
  const arrow = await row.locator(".tl-arrow").boundingBox();
  const head = await page.locator(".tl-lanes .tl-lane", { hasText: lane }).boundingBox();
  return Math.abs(arrow.x + arrow.width - (head.x + head.width / 2));
}

test("rows stay on their server's lane, and take its name, as more servers connect", async ({ page }) => {
  const console = watchConsole(page);
  // Tall enough for every row of both servers: the first server's rows stay drawn (the list
  // neither scrolls nor virtualises them away) while the second one connects.
  await page.setViewportSize({ width: 1280, height: 1600 });
  await openApp(page);
  // No label: the card and the lane take the server's name once it has answered initialize.
  await addForm(page).getByLabel("MCP server URL").fill(URLS.python);
  await addForm(page).getByRole("button", { name: "Connect" }).click();
  await expect(page.getByRole("article", { name: "loopscope_notes" }).getByText("connected", { exact: true })).toBeVisible();
  const notes = await timelineRow(page, /^Loopscope to MCP: loopscope_notes: initialize #\d+/);
  await addServer(page, URLS.everything, "everything");
  await expect(page.locator(".tl-lanes .tl-lane", { hasText: "MCP: everything" })).toBeVisible();
  await expect(notes).toBeVisible();
  expect(await offLane(page, notes, "MCP: loopscope_notes")).toBeLessThan(3);
  const everything = await timelineRow(page, /^Loopscope to MCP: everything: initialize #\d+/);
  expect(await offLane(page, everything, "MCP: everything")).toBeLessThan(3);
  await snap(page, "servers-two-lanes");
  console.expectNone();
});

test("the same server twice, or a label another server has, is refused with the reason", async ({ page }) => {
  await openApp(page);
  await addServer(page, URLS.everything, "everything");
  const form = addForm(page);

  await form.getByLabel("MCP server URL").fill(URLS.everything);
  await form.getByRole("button", { name: "Connect" }).click();
  await expect(form.getByRole("alert")).toHaveText(/already in the list as "everything": use Connect on its card/);
  await expect(form.getByLabel("MCP server URL")).toHaveValue(URLS.everything);
  await snap(page, "servers-duplicate-refused");

  await form.getByLabel("MCP server URL").fill(URLS.python);
  await form.getByText("Label and headers").click();
  await form.getByLabel("Label (tool name prefix)").fill("Everything");
  await form.getByRole("button", { name: "Connect" }).click();
  await expect(form.getByRole("alert")).toHaveText(/prefix "everything", which the server "everything" already uses/);

  // A label of its own adds the same URL again, as a second server.
  await form.getByLabel("MCP server URL").fill(URLS.everything);
  await form.getByLabel("Label (tool name prefix)").fill("everything again");
  await form.getByRole("button", { name: "Connect" }).click();
  await expect(form.getByRole("alert")).toBeHidden();
  await expect(page.getByRole("article", { name: "everything again" }).getByText("connected", { exact: true })).toBeVisible();
  await expect(page.getByRole("article", { name: /^everything/ })).toHaveCount(2);
});

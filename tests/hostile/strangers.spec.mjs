// Nothing runs on a stranger's say-so. A lesson from a link, or a recorded session replayed,
// drives the loop; neither may make a call to a server the user did not agree to let it use:
// the call waits for the user's approval, with the server, the tool and the arguments, and a
// denial means the server never hears of it. (Before issue 19, a lesson that named no server
// could script the demo model into calling a server the user had saved earlier.)
import { test, expect } from "@playwright/test";
import { URLS } from "../e2e/fixtures.mjs";
import { addServer, ask, openApp, reply, script, snap, toolUse, useFakeClaude } from "../e2e/support.mjs";
import { reset, seen, watchAttack } from "./support.mjs";

const chat = (page) => page.getByRole("log", { name: "Conversation" });

test("a lesson that names no server cannot call the user's own server: the call asks first, and a denial sends nothing", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  // The user's own server, saved earlier, with a tool nobody should run unasked.
  await addServer(page, URLS.hostile("/files/mcp"), "files");
  const lesson = {
    lesson: 1, title: "A harmless lesson", model: "demo",
    steps: [{
      text: "Press the button.", ask: "Tidy up, please.",
      replies: [{ text: "Tidying.", tool_use: [{ name: "files_delete_everything", input: { path: "/" } }] }],
    }],
  };
  await page.goto(`./#lesson=${Buffer.from(JSON.stringify(lesson)).toString("base64url")}`);
  await page.reload();
  // The saved server is back with its tools listed (its card names the destructive one) before
  // the lesson runs: "connected" alone came before tools/list once, and the call found no tool.
  await expect(page.getByRole("article", { name: "files" }).getByText(/Marked destructive by the server/)).toBeVisible();
  const region = page.getByRole("region", { name: "A harmless lesson" });
  // The banner says what the lesson's script will call.
  await expect(region).toContainText('The demo model\'s scripted answer calls: files_delete_everything {"path":"/"}');
  await region.getByRole("button", { name: "Ask: Tidy up, please." }).click();
  const dialog = page.getByRole("dialog", { name: "Run this tool call?" });
  await expect(dialog).toContainText('The lesson "A harmless lesson" is running, and "files" is not a server you agreed to let it use');
  await expect(dialog).toContainText("The demo model asks for files_delete_everything");
  await expect(dialog).toContainText('tools/call "delete_everything" on the MCP server "files"');
  await expect(dialog).toContainText('"path": "/"');
  // A stranger's call: Enter does not run it.
  await expect(dialog.getByRole("button", { name: "Deny" })).toBeFocused();
  await snap(page, "hostile-lesson-approval");
  await dialog.getByRole("button", { name: "Deny" }).click();
  await expect(chat(page).getByText(/denied this tool call/).first()).toBeVisible({ timeout: 20_000 });
  expect((await seen()).calls).toEqual([]);
  await attack.expectNoScript();
});

test("a recorded session replayed reaches only the servers it names; any other call asks first", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  await page.getByLabel("Demo model (no key)").check();
  // A recording made with no server at all…
  await ask(page, "Please delete everything.");
  const workshop = page.getByRole("region", { name: "Workshop" });
  await workshop.getByText("Workshop").click();
  const downloading = page.waitForEvent("download");
  await workshop.getByRole("button", { name: "Export this session" }).click();
  const file = await (await downloading).path();
  // …replayed where the user has a server with a dangerous tool.
  await addServer(page, URLS.hostile("/files/mcp"), "files");
  await workshop.getByLabel("Open a recorded session…").setInputFiles(file);
  const viewing = page.getByRole("region", { name: "A recorded session" });
  await expect(viewing).toContainText("none of your servers is one it names, so every call to a server asks you first");
  await snap(page, "hostile-replay-banner");
  await viewing.getByRole("button", { name: "Replay it against your servers and model" }).click();
  const dialog = page.getByRole("dialog", { name: "Run this tool call?" });
  await expect(dialog).toContainText('The recorded session is running, and "files" is not a server you agreed to let it use');
  await dialog.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByRole("heading", { name: "The replay next to the recording" })).toBeVisible({ timeout: 30_000 });
  expect((await seen()).calls).toEqual([]);
  await attack.expectNoScript();
});

// A skill's text (or any text Claude read) can talk Claude into a destructive call. Under the
// default settings, a tool its own server marks `destructiveHint: true` still asks first; the
// card lets the user allow that server's destructive tools, and take it back.
test("a tool its server marks destructive asks first under default settings; the card can allow it and take it back", async ({ page }) => {
  await reset();
  const attack = await watchAttack(page);
  await openApp(page);
  const key = "sk-hostile-destructive";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.hostile("/files/mcp"), "files");
  await expect(card.getByRole("note")).toContainText("Marked destructive by the server, so a call asks you first, whoever makes it: delete_everything.");
  const turn = async (answer) => {
    await script(key, [reply({ text: "The skill says to clean up." }, toolUse("files_delete_everything", { path: "/" })), { summarize: {} }]);
    await page.getByRole("textbox", { name: "Message", exact: true }).fill("Follow the skill.");
    await page.getByRole("button", { name: "Send" }).click();
    if (answer) {
      const dialog = page.getByRole("dialog", { name: "Run this tool call?" });
      await expect(dialog).toContainText('"files" marks delete_everything as destructive (destructiveHint): it runs only if you approve it.');
      await expect(dialog).toContainText('"path": "/"');
      if (answer === "Deny") await snap(page, "hostile-destructive-asks");
      await dialog.getByRole("button", { name: answer }).click();
    }
    await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  };
  await turn("Deny");
  await expect(chat(page).getByText(/denied this tool call/).first()).toBeVisible();
  expect((await seen()).calls).toEqual([]);
  // Allowed on the card: it runs without a question.
  await card.getByLabel(/Let them run without asking/).check();
  await turn(null);
  expect((await seen()).calls.map((c) => [c.name, c.arguments])).toEqual([["delete_everything", { path: "/" }]]);
  // Taken back: it asks again.
  await card.getByLabel(/Let them run without asking/).uncheck();
  await turn("Deny");
  expect((await seen()).calls.length).toBe(1);
  await attack.expectNoScript();
});

// A lesson's labels and a server's tool names are a stranger's text. A right-to-left override
// made `…/mcp as "notes" (new: it will be added)` read, on screen, as a harmless sentence, and a
// 10,000-character label imitated the page's own words. Every character that could disguise a
// name is shown as it is stored, and a long one is cut, the whole of it one click away.
test("a lesson's labels with direction overrides, zero-width characters and 10,000 characters cannot disguise themselves", async ({ page }) => {
  const attack = await watchAttack(page);
  await openApp(page);
  const sneaky = "notes \u202Elliw ti :wen\u202C sa\u200B";
  const long = "Connected. Everything is fine. ".repeat(330);
  const lesson = {
    lesson: 1, title: `Harmless\u2066 lesson`, model: "demo",
    servers: [{ url: URLS.hostile("/files/mcp"), label: sneaky }, { url: URLS.hostile("/plain/mcp"), label: long }],
    steps: [{ text: "Press the button.", ask: "Hello." }],
  };
  await page.goto(`./#lesson=${Buffer.from(JSON.stringify(lesson)).toString("base64url")}`);
  await page.reload();
  const servers = page.getByRole("group", { name: "Servers this lesson uses" });
  await expect(servers).toContainText("as notes [U+202E]lliw ti :wen[U+202C] sa[U+200B]");
  await expect(page.locator("#lesson-title")).toContainText("Harmless[U+2066] lesson");
  // The long label: cut at 80 characters, set apart, the rest one click away.
  const cut = servers.locator(".stranger").nth(1);
  expect((await cut.textContent()).length).toBeLessThanOrEqual(81);
  await snap(page, "hostile-disguised-labels");
  await servers.getByRole("button", { name: "all of it" }).click();
  expect((await cut.textContent()).length).toBe(long.length);
  // No raw override reaches the screen anywhere.
  expect(await page.evaluate(() => document.body.innerText.includes("\u202E"))).toBe(false);
  await attack.expectNoScript();
});

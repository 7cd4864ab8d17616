// What a new user hit (issue 12), each reproduced as they met it: calls left "being written"
// after a turn that ended early, headers silently gone after a reload, focus lost by Escape,
// "CORS" for a server that is simply down, and a layout that clipped at a projector's size.
import { test, expect } from "@playwright/test";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, frames, openApp, openRow, reply, script, snap, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const conversation = (page) => page.getByRole("log", { name: "Conversation" });

/** A port nothing listens on (the OS picks it; we close it again). */
async function freePort() {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

/** The Python SDK server, started by this test on 127.0.0.1 (and stopped by it). */
async function startPython(port) {
  const child = spawn(`${ROOT}.venv/bin/python`, [`${ROOT}tests/servers/py_server.py`, "--port", String(port), "--mode", "json"], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "OPTIONS" }).then(() => true, () => false);
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error("the Python SDK server did not start within 10 s");
}

test("every call of a turn that ends early says why it did not run", async ({ page }) => {
  await openApp(page);
  const key = "sk-e2e-early";
  await useFakeClaude(page, key);
  const log = conversation(page);

  // Cut off at max_tokens while Claude writes the call.
  await script(key, [{ max_tokens_mid_tool_use: { text: "Let me write it.", name: "calculate", partial: "{\"expr" } }]);
  await ask(page, "Compute something long.");
  await expect(log.getByText("Not executed: Claude was cut off at max_tokens before the call was complete.")).toBeVisible();
  await expect(log.getByText("Claude is writing the call…")).toHaveCount(0);
  await snap(page, "call-cut-off-at-max-tokens");

  // The stream fails (after its retries) while the call is being written.
  const broken = { stream_error: { text: "Checking.", tool_use: { name: "calculate", partial: "{\"ex" }, type: "overloaded_error", message: "Overloaded" } };
  await script(key, [broken, broken, broken]);
  await ask(page, "Again, please.");
  await expect(log.getByText(/The request failed/)).toBeVisible();
  await expect(log.getByText("Not executed: the request failed before the call was complete.")).toBeVisible();
  await expect(log.getByText("Claude is writing the call…")).toHaveCount(0);

  // Stopped by the user while Claude is still writing the call (the stream is slow).
  await script(key, [{ reply: { content: [{ text: "I'll calculate." }, { tool_use: { name: "calculate", input: { expression: "1+2+3+4+5+6+7+8+9" } } }], event_delay_ms: 400 } }]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("One more.");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(log.getByText("Claude is writing the call…")).toBeVisible();
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await expect(log.getByText("Not executed: stopped by you.")).toBeVisible();
  await expect(log.getByText("Claude is writing the call…")).toHaveCount(0);
  await snap(page, "call-stopped-by-you");
});

test("a server's headers that were not kept are asked for again, not silently dropped", async ({ page }) => {
  await openApp(page);
  await page.getByLabel("MCP server URL").fill(URLS.fault("auth"));
  await page.getByText("Label and headers").click();
  await page.getByLabel("Label (tool name prefix)").fill("guarded");
  await page.getByLabel("Headers, one per line").fill("Authorization: Bearer letmein");
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  let card = page.getByRole("article", { name: "guarded" });
  await expect(card.getByText("connected", { exact: true })).toBeVisible();

  await page.reload();
  card = page.getByRole("article", { name: "guarded" });
  // Before any click: the card says the header is gone, and offers to enter it.
  await expect(card.getByText(/was added with a header \(Authorization\), whose values were not saved/)).toBeVisible();
  await expect(card.getByRole("button", { name: "Connect", exact: true })).toHaveCount(0);
  await card.scrollIntoViewIfNeeded();
  await snap(page, "headers-not-kept");
  const form = card.getByRole("form", { name: "Enter this server's headers again" });
  await expect(form.getByLabel("Headers, one per line")).toHaveValue("Authorization: ");
  await form.getByRole("button", { name: "Connect with these headers" }).click();
  await expect(form.getByText('Give "Authorization" a value')).toBeVisible();
  await form.getByLabel("Headers, one per line").fill("Authorization: Bearer letmein");
  await form.getByLabel("Remember these headers on this device").check();
  await expect(form.getByText(/Stored unencrypted/)).toBeVisible();
  await form.getByRole("button", { name: "Connect with these headers" }).click();
  await expect(card.getByText("connected", { exact: true })).toBeVisible();

  // Remembered (the user's explicit choice): the next load connects with it by itself.
  expect(await page.evaluate(() => localStorage.getItem("loopscope.servers"))).toContain("Bearer letmein");
  await page.reload();
  await expect(page.getByRole("article", { name: "guarded" }).getByText("connected", { exact: true })).toBeVisible();
});

test("keyboard: Escape gives focus back to the row that opened the details; each area is one key away", async ({ page }) => {
  await openApp(page);
  await addServer(page, URLS.everything, "everything");
  // From the top of the page (with a server's card in the way), the message box is one Tab and
  // Enter away; it took 22 Tabs.
  await page.reload();
  await expect(page.getByRole("article", { name: "everything" }).getByText("connected", { exact: true })).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to the message box" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("textbox", { name: "Message", exact: true })).toBeFocused();

  const list = page.getByRole("listbox", { name: /Timeline events/ });
  await list.focus();
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowDown");
  const active = await list.getAttribute("aria-activedescendant");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(list).toBeFocused();
  await expect(list).toHaveAttribute("aria-activedescendant", active);
  // The ✕ does the same.
  await page.keyboard.press("Enter");
  await page.getByRole("button", { name: "Close details" }).click();
  await expect(list).toBeFocused();
});

test("a server that is down is told apart from one the browser may not read (CORS)", async ({ page }) => {
  const console = watchConsole(page, ["Failed to load resource", "CORS policy", "net::ERR_"]);
  await openApp(page);
  const down = await addServer(page, `http://127.0.0.1:${await freePort()}/mcp`, "down", "failed");
  await expect(down.getByText(/^Nothing answers at this address/)).toBeVisible();
  await expect(down.getByText(/CORS/)).toHaveCount(0);

  const nocors = await addServer(page, URLS.pythonNoCors, "nocors", "failed");
  await expect(nocors.getByText(/^Something answers at this address, but the browser will not let this page read the answer: CORS\./)).toBeVisible();
  // One line first; what the server must send is one click away.
  const more = nocors.getByText("What to check");
  await expect(nocors.getByText(/Access-Control-Expose-Headers: Mcp-Session-Id/)).toBeHidden();
  await more.click();
  await expect(nocors.getByText(/Access-Control-Expose-Headers: Mcp-Session-Id/)).toBeVisible();
  await down.scrollIntoViewIfNeeded();
  await snap(page, "down-versus-cors");

  // A server that dies after connecting: the card stops saying "connected", and the turn that
  // leaves its tools out says so in the chat.
  const port = await freePort();
  const python = await startPython(port);
  try {
    const key = "sk-e2e-down";
    await useFakeClaude(page, key);
    const doomed = await addServer(page, `http://127.0.0.1:${port}/mcp`, "doomed");
    python.kill();
    await new Promise((r) => python.once("exit", r));
    await script(key, [reply({ text: "No notes server today." })]);
    await ask(page, "Search the notes.");
    await expect(doomed.getByText("unreachable", { exact: true })).toBeVisible();
    // (The first: a listing that was still running when the server died says so too.)
    await expect(doomed.getByText(/^Nothing answers at this address/).first()).toBeVisible();
    await expect(doomed.getByRole("button", { name: "Reconnect" })).toBeVisible();
    await expect(conversation(page).getByText(/The tools of "doomed" are left out of this turn: tools\/list failed \(network layer\)/)).toBeVisible();
    await doomed.scrollIntoViewIfNeeded();
    await snap(page, "server-died");
  } finally {
    python.kill();
  }
  console.expectNone();
});

for (const [width, height] of [[1280, 720], [1920, 1080]]) {
  test(`nothing is clipped or covered at ${width}×${height}`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await openApp(page);
    const key = "sk-e2e-layout";
    await useFakeClaude(page, key);
    const card = await addServer(page, URLS.python, "notes");
    // A server added without a label is named by its address, on its card and on its lane.
    await page.getByLabel("MCP server URL").fill(URLS.everything);
    await page.getByRole("button", { name: "Connect", exact: true }).click();
    const unlabelled = page.getByRole("article", { name: "everything" });
    await expect(unlabelled.getByText("connected", { exact: true })).toBeVisible();
    await script(key, [reply(toolUse("notes_search_notes", { query: "jsonrpc" })), { summarize: {} }]);
    await ask(page, "Search the notes.");

    // The card's tabs fit the sidebar: the Log tab is whole.
    const tabs = card.getByRole("tablist");
    const fits = await tabs.evaluate((el) => [...el.children].every((t) => {
      const a = t.getBoundingClientRect(), b = el.closest(".sidebar").getBoundingClientRect();
      return a.right <= b.right && t.scrollWidth <= t.clientWidth;
    }));
    expect(fits).toBe(true);
    // Lane headers are whole, and a server's lane has the server's name.
    const lanes = page.locator(".tl-lane");
    const cut = await lanes.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent));
    expect(cut).toEqual([]);
    await expect(lanes.filter({ hasText: "MCP: notes" })).toHaveCount(1);
    await expect(lanes.filter({ hasText: /MCP: everything/ })).toHaveCount(1);
    await expect(lanes.filter({ hasText: /MCP: s\d/ })).toHaveCount(0);
    await snap(page, `layout-${width}-turn`);

    // The detail pane covers the timeline only: the chat's buttons stay whole and clickable.
    await openRow(page, /tool_use notes_search_notes/);
    const newConversation = page.getByRole("button", { name: "New conversation" });
    await expect(newConversation).toBeVisible();
    const onTop = await newConversation.evaluate((b) => {
      const r = b.getBoundingClientRect();
      return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === b;
    });
    expect(onTop).toBe(true);
    await snap(page, `layout-${width}-details`);
    await page.keyboard.press("Escape");

    // "Follow new events" covers no row: it sits under the list.
    const list = page.getByRole("listbox", { name: /Timeline events/ });
    await list.evaluate((el) => (el.scrollTop = 0));
    await frames(page);
    const follow = page.getByRole("button", { name: "↓ Follow new events" });
    await expect(follow).toBeVisible();
    const below = await follow.evaluate((b) => b.getBoundingClientRect().top >= document.getElementById("timeline-events").getBoundingClientRect().bottom - 1);
    expect(below).toBe(true);
    await snap(page, `layout-${width}-scrolled`);
  });
}

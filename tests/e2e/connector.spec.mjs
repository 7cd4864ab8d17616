// The API's MCP connector side by side with the page's own loop ("Ask both ways"), in the real
// build against the fake Messages API and a real server (server-everything). The connector calls
// public addresses only: the page reaches the server at a public-looking https origin that the
// test routes to 127.0.0.1, and the fake API reaches the same origin through its host map.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, openApp, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole } from "./support.mjs";

const ORIGIN = "https://everything.example.test";

/** Routes the public-looking origin to server-everything on 127.0.0.1; returns what the page sent it. */
async function routeEverything(page) {
  const seen = [];
  await page.route(`${ORIGIN}/**`, async (route) => {
    const req = route.request();
    seen.push(`${req.method()} ${req.postData() ?? ""}`);
    // The GET stream would never end a buffered fetch: this server says it has none.
    if (req.method() === "GET") return route.fulfill({ status: 405, headers: { "access-control-allow-origin": "*" } });
    // Playwright's own keep-alive connection to the server may be closed by it as it goes idle
    // (Node's 5 s), failing the next request here, in the test's proxy, not in the page: once
    // more on a new connection.
    const response = await route.fetch({ url: URLS.everything }).catch(() => route.fetch({ url: URLS.everything }));
    await route.fulfill({ response });
  });
  const fake = await fetch(`${URLS.claude}/_fake/connector-hosts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ [ORIGIN]: URLS.everything.replace(/\/mcp$/, "") }),
  });
  expect(fake.status).toBe(200);
  return seen;
}

test("ask both ways: the page calls the server, then the API does; the figures side by side", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-connector";
  await useFakeClaude(page, key);
  const seen = await routeEverything(page);
  await addServer(page, `${ORIGIN}/mcp`, "everything");
  // A server on this machine: the connector cannot reach it, and the comparison says so.
  await addServer(page, URLS.python, "notes");

  const input = { message: "two ways" };
  await script(key, [
    reply(toolUse("everything_echo", input)),
    { summarize: {} },
    reply({ mcp_tool_use: { server_name: "everything", name: "echo", input } }, { text: "The API called echo: two ways." }),
  ]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Echo 'two ways'");
  await page.getByRole("button", { name: "Ask both ways" }).click();
  const panel = page.getByRole("region", { name: "Both ways compared" });
  await expect(panel).toBeVisible({ timeout: 30_000 });

  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(/The same question again, through the API's MCP connector: the API calls "everything" itself, without asking this page/)).toBeVisible();
  await expect(chat.getByText("The API called echo: two ways.")).toBeVisible();
  await expect(chat.getByText("echo run by the Claude API")).toBeVisible();

  // The figures a user compares, each way in its column.
  const cells = async (what) => panel.getByRole("row", { name: new RegExp(`^${what}`) }).getByRole("cell").allTextContents();
  expect(await cells("tools/call this page sent to them")).toEqual(["1", "0"]);
  expect(await cells("calls the API made")).toEqual(["0", "1"]);
  expect(await cells("Messages API requests")).toEqual(["2", "1"]);
  expect((await cells("bytes between the page and them"))[1]).toBe("0 B");
  expect(await cells("input tokens")).not.toContain("not in the trace");
  await expect(panel.getByRole("list", { name: "Servers the connector could not call" })).toContainText(
    "notes: 127.0.0.1 is this machine",
  );

  // What the API was sent: the server in mcp_servers with its toolset, none of its tools;
  // and the page sent the server nothing during the second way.
  const sent = await requests(key);
  expect(sent).toHaveLength(3);
  const third = sent[2];
  expect(third.mcp_servers).toEqual([{ type: "url", url: `${ORIGIN}/mcp`, name: "everything" }]);
  expect(third.tools).toContainEqual({ type: "mcp_toolset", mcp_server_name: "everything" });
  expect(third.tools.map((t) => t.name)).not.toContain("everything_echo");
  expect(third.tools.map((t) => t.name)).toContain("notes_search_notes");
  expect(third.messages).toHaveLength(1);
  expect(seen.filter((s) => s.includes('"tools/call"'))).toHaveLength(1);

  // Both turns on the timeline: the page's call on the server's lane, the API's on its own.
  await expect(await timelineRow(page, /tools\/call/)).toBeVisible();
  await expect(await timelineRow(page, /mcp_tool_use echo/)).toBeVisible();
  await expect(await timelineRow(page, /mcp_tool_result/)).toBeVisible();
  await expect(await timelineRow(page, /Through the API's MCP connector: "everything"/)).toBeVisible();
  await snap(page, "connector-compared");

  // The conversation goes on from the page's answer: the comparison run is not in it.
  await script(key, [reply({ text: "Still here." })]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("And now?");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(chat.getByText("Still here.")).toBeVisible();
  const next = (await requests(key))[3];
  expect(next.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  expect(next.mcp_servers).toBeUndefined();
  console.expectNone();
});

test("ask both ways with only servers on this machine: nothing is sent, and each reason is said", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-connector-none";
  await useFakeClaude(page, key);
  await addServer(page, URLS.everything, "everything");
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Echo hi");
  await page.getByRole("button", { name: "Ask both ways" }).click();
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByRole("alert")).toContainText(
    /Nothing to compare: the API's MCP connector can reach none of the connected servers\. "everything": 127\.0\.0\.1 is this machine/,
  );
  expect(await requests(key)).toEqual([]);
  // The question stays in the box, to send the usual way.
  await expect(page.getByRole("textbox", { name: "Message", exact: true })).toHaveValue("Echo hi");
  await snap(page, "connector-unreachable");
  console.expectNone();
});

test("a server address with a token in it: the token is never sent to the API, and the connector is refused for it", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-connector-secret";
  await useFakeClaude(page, key);
  await routeEverything(page);
  await addServer(page, `${ORIGIN}/mcp?token=sekr1t-abc`, "everything");
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Echo hi");
  await page.getByRole("button", { name: "Ask both ways" }).click();
  await expect(page.getByRole("log", { name: "Conversation" }).getByRole("alert")).toContainText(
    /"everything": it is given credentials \(token\) that the connector cannot send/,
  );
  expect(await requests(key)).toEqual([]);
  console.expectNone();
});

test.describe(() => {
  // The service worker would serve the chunk from its cache, past the blocked route.
  test.use({ serviceWorkers: "block" });
  test("the comparison's chunk does not arrive: a sentence where it was asked for, and the usual Send still works", async ({ page }) => {
    const console = watchConsole(page, ["split_compare", "Failed to load resource", "Failed to fetch"]);
    await page.route(/split_compare\.wasm$/, (route) => route.abort());
    await openApp(page);
    const key = "sk-e2e-connector-chunk";
    await useFakeClaude(page, key);
    await addServer(page, URLS.everything, "everything");
    await page.getByRole("textbox", { name: "Message", exact: true }).fill("Echo hi");
    await page.getByRole("button", { name: "Ask both ways" }).click();
    const chat = page.getByRole("log", { name: "Conversation" });
    await expect(chat.getByRole("alert")).toContainText("The comparison's code did not arrive");
    expect(await requests(key)).toEqual([]);
    await script(key, [reply({ text: "Sent the usual way." })]);
    await page.getByRole("button", { name: "Send" }).click();
    await expect(chat.getByText("Sent the usual way.")).toBeVisible();
    console.expectNone();
  });
});

test("the connector's run fails: its error is shown, and nothing is compared", async ({ page }) => {
  // Chromium logs the API's 400 as a failed resource.
  const console = watchConsole(page, ["the server responded with a status of 400"]);
  await openApp(page);
  const key = "sk-e2e-connector-fails";
  await useFakeClaude(page, key);
  await routeEverything(page);
  await addServer(page, `${ORIGIN}/mcp`, "everything");
  await script(key, [
    reply({ text: "No tool needed." }),
    { error: { status: 400, type: "invalid_request_error", message: "Connection error while communicating with MCP server 'everything'" } },
  ]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Say hi");
  await page.getByRole("button", { name: "Ask both ways" }).click();
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(/Nothing to compare: the run through the MCP connector did not finish/)).toBeVisible({ timeout: 20_000 });
  await expect(chat.getByText(/Connection error while communicating with MCP server 'everything'/)).toBeVisible();
  await expect(page.getByRole("region", { name: "Both ways compared" })).toHaveCount(0);
  console.expectNone();
});

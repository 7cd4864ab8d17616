// Tasks, both eras, in the real build: a tools/call the server turns into a task is a bar on
// its lane from created to ended, every poll an arrow; input required opens the form in place;
// Cancel cancels on the server; what the task ends with is the tool_result Claude receives.
// 2025-11-25 against server-everything (the TypeScript SDK's experimental tasks); the 2026
// extension against testkit's tasks server, written from the extension's text.
import { test, expect } from "@playwright/test";
import { URLS } from "./fixtures.mjs";
import { addServer, ask, reply, requests, script, snap, timelineRow, toolUse, useFakeClaude, watchConsole, openApp } from "./support.mjs";

/** The tool_result blocks of the last request Claude received. */
async function lastResults(key) {
  const all = await requests(key);
  const last = all[all.length - 1];
  return last.messages[last.messages.length - 1].content.filter((b) => b.type === "tool_result");
}

const text = (result) => (typeof result.content === "string" ? result.content : result.content.map((c) => c.text).join(""));

test("2025-11-25: a research task on server-everything asks for input in place and returns its report", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-tasks-legacy";
  await useFakeClaude(page, key);
  await addServer(page, URLS.everything, "everything");
  await script(key, [
    reply(toolUse("everything_simulate-research-query", { topic: "python", ambiguous: true })),
    reply({ text: "The report is in." }),
  ]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Research python for me.");
  await page.getByRole("button", { name: "Send" }).click();

  // The task asks which python: the form opens while the task waits, its bar on the lane.
  const dialog = page.getByRole("dialog", { name: 'The MCP server "everything" asks you' });
  await expect(dialog).toBeVisible({ timeout: 20_000 });
  const strip = page.getByRole("list", { name: "Tasks running on servers" });
  await expect(strip).toContainText("input required");
  await dialog.getByLabel(/Clarification/).selectOption({ label: "Monty Python comedy group" });
  await dialog.getByRole("button", { name: "Accept" }).click();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });

  const [result] = await lastResults(key);
  expect(result.is_error ?? false).toBe(false);
  expect(text(result)).toContain("Research Report: python (comedy)");
  await expect(strip).toBeHidden();
  await timelineRow(page, /^Note: task \S+ created · .*, working, poll 1\.00 s$/);
  await timelineRow(page, /^Note: task \S+ · .*Requesting clarification.*, input required/);
  await timelineRow(page, /MCP: everything to Loopscope: notifications\/tasks\/status/);
  await (await timelineRow(page, /^Note: task \S+ · .*, completed$/)).scrollIntoViewIfNeeded();
  await expect(page.locator(".tl-task.completed")).toHaveCount(1);
  await snap(page, "task-bar-legacy");
  console.expectNone();
});

test("the tasks extension: progress while it runs, a failure, and a task cancelled from the page", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-tasks-modern";
  await useFakeClaude(page, key);
  const card = await addServer(page, URLS.tasks, "jobs");
  await expect(card.locator(".server-info strong")).toHaveText("2026-07-28");

  // A long task: its status messages as it runs, then its result.
  await script(key, [reply(toolUse("jobs_slow_report", { steps: 8 })), reply({ text: "Done." })]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Write the report.");
  await page.getByRole("button", { name: "Send" }).click();
  const strip = page.getByRole("list", { name: "Tasks running on servers" });
  await expect(strip).toContainText(/working · step [2-7] of 8/, { timeout: 10_000 });
  await expect(page.locator(".tl-task.working")).toHaveCount(1);
  await snap(page, "task-running");
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  expect(text((await lastResults(key))[0])).toBe("Report ready after 8 steps");

  // A task that fails: its JSON-RPC error is what Claude reads, with is_error.
  await script(key, [reply(toolUse("jobs_failing_build", {})), reply({ text: "The build failed." })]);
  await ask(page, "Build it.");
  let [result] = await lastResults(key);
  expect(result.is_error).toBe(true);
  expect(text(result)).toContain("the build farm is offline");

  // A task cancelled from the page: tasks/cancel, then the task ends cancelled.
  await script(key, [reply(toolUse("jobs_endless_job", {})), reply({ text: "Cancelled, as asked." })]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Start the endless job.");
  await page.getByRole("button", { name: "Send" }).click();
  await strip.getByRole("button", { name: /Cancel task task-/ }).click();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  [result] = await lastResults(key);
  expect(result.is_error).toBe(true);
  expect(text(result)).toContain("the user cancelled that task before it finished");
  await (await timelineRow(page, /Loopscope to MCP: jobs: tasks\/cancel/)).scrollIntoViewIfNeeded();
  await expect(page.locator(".tl-task.failed")).toHaveCount(1);
  await expect(page.locator(".tl-task.cancelled")).toHaveCount(1);
  await snap(page, "task-bars-modern");
  console.expectNone();
});

test("the tasks extension: input required opens the form, the answer goes back with tasks/update", async ({ page }) => {
  await openApp(page);
  const key = "sk-e2e-tasks-input";
  await useFakeClaude(page, key);
  await addServer(page, URLS.tasks, "jobs");
  await script(key, [reply(toolUse("jobs_confirm_deploy", {})), reply({ text: "Deployed." })]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Deploy build 42.");
  await page.getByRole("button", { name: "Send" }).click();
  const dialog = page.getByRole("dialog", { name: 'The MCP server "jobs" asks you' });
  await expect(dialog).toContainText("Deploy build 42 to production?", { timeout: 10_000 });
  await dialog.getByLabel(/Go ahead/).check();
  await snap(page, "task-input-required");
  await dialog.getByRole("button", { name: "Accept" }).click();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden({ timeout: 30_000 });
  expect(text((await lastResults(key))[0])).toBe('Deployed. The user answered: {"ok":true}');
  await timelineRow(page, /Loopscope to MCP: jobs: tasks\/update/);
});

test("a reload in the middle of a task: the page follows it on and says how it ended, and that Claude did not get it", async ({ page }) => {
  const console = watchConsole(page);
  await openApp(page);
  const key = "sk-e2e-tasks-reload";
  await useFakeClaude(page, key);
  await addServer(page, URLS.tasks, "jobs");
  await script(key, [reply(toolUse("jobs_slow_report", { steps: 12 })), reply({ text: "Done." })]);
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Write the long report.");
  await page.getByRole("button", { name: "Send" }).click();
  const strip = page.getByRole("list", { name: "Tasks running on servers" });
  await expect(strip).toContainText(/working · step [1-5] of 12/, { timeout: 10_000 });
  const line = await strip.locator("li").first().innerText();
  const taskId = /^Task (\S+) on/.exec(line)[1];

  // What storage holds is data: a second entry with a 5,000-character id, and junk, are left out.
  await page.evaluate(() => {
    const kept = sessionStorage.getItem("loopscope.tasks");
    const server = kept.split("\t")[0];
    sessionStorage.setItem("loopscope.tasks", `${kept}${server}\t${"x".repeat(5000)}\t\njunk\n${server}\tbell\u0007\t\n`);
  });
  await page.reload();
  // The server reconnects on its own; the kept task is followed on from tasks/get.
  await expect(page.getByRole("article", { name: "jobs" }).getByText("connected", { exact: true })).toBeVisible();
  await expect(strip).toContainText(new RegExp(`Task ${taskId} on jobs: working · step \\d+ of 12`), { timeout: 10_000 });
  await expect(page.locator(".tl-task.working")).toHaveCount(1);
  await expect(strip.locator("li")).toHaveCount(1);
  await timelineRow(page, /^Note: task \S+ followed on after a reload · step \d+ of 12, working, poll 300 ms$/);
  await snap(page, "task-resumed");
  const chat = page.getByRole("log", { name: "Conversation" });
  await expect(chat.getByText(new RegExp(`Task ${taskId} on jobs, started before this page was reloaded, completed: "Report ready after 12 steps"\\. The turn that asked for it ended with the reload, so Claude did not receive this\\.`))).toBeVisible({ timeout: 15_000 });
  await expect(strip).toBeHidden();
  await expect(page.locator(".tl-task.completed")).toHaveCount(1);
  await snap(page, "task-resumed-ended");
  // Nothing is kept once it ended: a second reload follows nothing.
  expect(await page.evaluate(() => sessionStorage.getItem("loopscope.tasks"))).toBeNull();
  // Claude got one request only: the turn ended with the reload.
  expect((await requests(key)).length).toBe(1);
  console.expectNone();
});

// Playwright end-to-end tests against the release build in dist/, in Debian's Chromium.
// The static server and every fixture server bind 127.0.0.1 only.
import { defineConfig } from "@playwright/test";
import { mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";

import { FIXTURES, HOSTILE } from "./fixtures.mjs";

const PORT = Number(process.env.LOOPSCOPE_E2E_PORT ?? 4173);

// The site the static server serves: the build under a sub-path, as GitHub Pages hosts it
// (/loopscope/, where the specs run), and the same files at the root. One build must work in both.
const ROOT = new URL("../../", import.meta.url).pathname;
const SITE = join(ROOT, "target/e2e/site");
// Built once by the runner; workers load this file too, while the server is serving the site.
if (!process.env.TEST_WORKER_INDEX) {
  rmSync(SITE, { recursive: true, force: true });
  mkdirSync(SITE, { recursive: true });
  for (const file of readdirSync(join(ROOT, "dist"))) symlinkSync(join(ROOT, "dist", file), join(SITE, file));
  symlinkSync(join(ROOT, "dist"), join(SITE, "loopscope"));
}

export default defineConfig({
  // The end-to-end specs, and the attacker's (tests/hostile/, issue 19).
  testDir: "..",
  testMatch: /(e2e|hostile)\/.*\.spec\.mjs/,
  outputDir: "../../target/e2e/results",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/loopscope/`,
    viewport: { width: 1280, height: 720 },
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    },
  },
  webServer: [
    {
      command: `python3 -m http.server ${PORT} --bind 127.0.0.1 --directory target/e2e/site`,
      cwd: "../..",
      url: `http://127.0.0.1:${PORT}/loopscope/index.html`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "ignore",
    },
    {
      // Hostile servers of our own (tests/hostile/server.mjs): one port plays the attacker,
      // the next is another origin that records whatever reaches it.
      command: `node tests/hostile/server.mjs ${HOSTILE} ${HOSTILE + 1}`,
      cwd: "../..",
      url: `http://127.0.0.1:${HOSTILE}/_seen`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      // The MCP servers and the fake Messages API the specs talk to (testkit's fixtures binary,
      // built by scripts/test); all on 127.0.0.1, stopped with the run.
      command: `target/debug/fixtures ${Object.entries(FIXTURES).map(([k, p]) => `--${k} ${p}`).join(" ")}`,
      cwd: "../..",
      url: `http://127.0.0.1:${FIXTURES.claude}/_fake/requests`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});

// Playwright end-to-end tests against the release build in dist/, in Debian's Chromium.
// The static server and every fixture server bind 127.0.0.1 only.
import { defineConfig } from "@playwright/test";

import { FIXTURES } from "./fixtures.mjs";

const PORT = Number(process.env.LOOPSCOPE_E2E_PORT ?? 4173);

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.mjs/,
  outputDir: "../../target/e2e/results",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
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
      command: `python3 -m http.server ${PORT} --bind 127.0.0.1 --directory dist`,
      cwd: "../..",
      url: `http://127.0.0.1:${PORT}/index.html`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "ignore",
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

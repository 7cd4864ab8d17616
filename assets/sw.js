// Loopscope's offline copy. After one visit the page opens with no network: the page, its
// script, wasm, styles and the built-in lessons come from this cache. The page itself and
// lessons are fetched fresh first (so a newly published build is used at once) and fall back to
// the cache; the build's hashed files never change, so the cache answers them first. Only this
// site's own GET requests are touched: the Claude API and MCP servers always go to the network.
const CACHE = "loopscope-v1";
// Trunk names a build's files by their content: name-<hash>.ext, or <hash>-name.mjs (a hash of up
// to 16 hex digits: leading zeros are dropped).
const HASHED = /(-[0-9a-f]{12,16}(_bg)?\.(js|wasm|css|svg)|\/[0-9a-f]{12,16}-[\w-]+\.mjs)$/;

const LESSONS = ["lessons/four-phases.json", "lessons/error-layers.json", "lessons/parallel-calls.json"];

// The first visit's files were fetched before this worker existed: fetch the page again, and
// every file it names, so that the next visit works with no network at all.
async function precache() {
    const cache = await caches.open(CACHE);
    const page = await fetch("./", { cache: "no-cache" });
    if (!page.ok) return;
    const text = await page.clone().text();
    await cache.put("./", page);
    // Every file the (minified) page names as ./name: its script, wasm, styles, icon, initializer.
    const files = [...text.matchAll(/\.\/([\w.\/-]+\.(?:m?js|wasm|css|svg))/g)].map((m) => m[1]);
    await cache.addAll([...new Set([...files, ...LESSONS])]);
}

self.addEventListener("install", (event) => {
    event.waitUntil(precache().catch(() => {}).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
    event.waitUntil(self.clients.claim());
});

async function fresh(request) {
    const cache = await caches.open(CACHE);
    try {
        const response = await fetch(request);
        if (response.ok && request.mode === "navigate") {
            // One copy of the page, whatever its query (?lesson=…, ?demo): the same file.
            await cache.put("./", response.clone());
            await prune(cache, await response.clone().text());
        } else if (response.ok) {
            await cache.put(request, response.clone());
        }
        return response;
    } catch (error) {
        const navigate = request.mode === "navigate";
        const cached = await cache.match(navigate ? "./" : request);
        if (cached) return cached;
        throw error;
    }
}

async function kept(request) {
    const cache = await caches.open(CACHE);
    const cached = await cache.match(request);
    if (cached) return cached;
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
}

// Forgets the files of older builds: hashed names the new page no longer mentions.
async function prune(cache, page) {
    for (const request of await cache.keys()) {
        const path = new URL(request.url).pathname;
        const name = path.split("/").pop();
        if (HASHED.test(path) && !page.includes(name)) await cache.delete(request);
    }
}

self.addEventListener("fetch", (event) => {
    const request = event.request;
    const url = new URL(request.url);
    if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.endsWith("/sw.js")) return;
    if (url.pathname.endsWith("/auth-callback.html")) return;
    event.respondWith(HASHED.test(url.pathname) ? kept(request) : fresh(request));
});

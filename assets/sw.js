// Loopscope's offline copy. After one visit the page opens with no network: the page, its
// script, wasm, styles and the built-in lessons come from this cache.
//
// Only this build's own files are ever cached: their list is written here at build time
// (scripts/post-build.mjs), and nothing else a page fetches (a JSON the user opens, a file some
// other page on the origin serves, the Claude API, an MCP server) is stored or answered from
// here. The page itself and the lessons are fetched fresh first (so a newly published build is
// used at once) and fall back to the cache; the build's hashed files never change, so the cache
// answers them first. Each build has its own cache; older ones are deleted when it takes over.
const BUILD = { id: "unbuilt", files: [] };
const CACHE = `loopscope-${BUILD.id}`;
const SCOPE = new URL(self.registration.scope);
// The build's files as absolute paths, and which of them are fetched fresh first.
const FILES = new Map(BUILD.files.map((f) => [new URL(f, SCOPE).pathname, f]));
const FRESH_FIRST = (path) => path === SCOPE.pathname || path.endsWith("/index.html") || path.endsWith(".json");

self.addEventListener("install", (event) => {
    // The first visit's files were fetched before this worker existed: fetch them again, so that
    // the next visit works with no network at all.
    event.waitUntil(
        caches.open(CACHE).then((cache) => cache.addAll(BUILD.files)).catch(() => {}).then(() => self.skipWaiting()),
    );
});

self.addEventListener("activate", (event) => {
    event.waitUntil(
        caches.keys()
            .then((keys) => Promise.all(keys.filter((k) => k.startsWith("loopscope-") && k !== CACHE).map((k) => caches.delete(k))))
            .then(() => self.clients.claim()),
    );
});

async function freshFirst(request, key) {
    const cache = await caches.open(CACHE);
    try {
        const response = await fetch(request);
        // Only an answer from this very address (not a redirect elsewhere) replaces the copy.
        if (response.ok && !response.redirected && response.type === "basic") await cache.put(key, response.clone());
        return response;
    } catch (error) {
        const cached = await cache.match(key);
        if (cached) return cached;
        throw error;
    }
}

async function cachedFirst(request, key) {
    const cache = await caches.open(CACHE);
    const cached = await cache.match(key);
    if (cached) return cached;
    const response = await fetch(request);
    if (response.ok && !response.redirected && response.type === "basic") await cache.put(key, response.clone());
    return response;
}

self.addEventListener("fetch", (event) => {
    const request = event.request;
    const url = new URL(request.url);
    if (request.method !== "GET" || url.origin !== SCOPE.origin) return;
    // The page, whatever its query (?lesson=…, ?demo): one file, kept as "./".
    if (request.mode === "navigate" && (url.pathname === SCOPE.pathname || url.pathname === `${SCOPE.pathname}index.html`)) {
        event.respondWith(freshFirst(request, "./"));
        return;
    }
    const file = FILES.get(url.pathname);
    if (!file || url.search) return; // not this build's file: the network alone answers
    event.respondWith(FRESH_FIRST(url.pathname) ? freshFirst(request, file) : cachedFirst(request, file));
});

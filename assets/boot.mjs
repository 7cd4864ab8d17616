// Starts the app: fetches the first chunk of wasm with its progress on the loading screen
// (index.html's #boot), starts it, and says plainly when it cannot. The page's inline start
// script (written by scripts/post-build.mjs) calls it with the build's file names. The app
// removes #boot once it runs, and `loopscope:started` is dispatched on window (scripts/bench-load.mjs
// times it).
export default async function start(script, wasm, size) {
    const what = () => document.getElementById("boot-what");
    const bar = () => document.getElementById("boot-progress");
    const kb = (n) => Math.round(n / 1024);
    // `size` is the wasm's size as built; a compressed transfer still counts unpacked bytes, so
    // the share is right either way.
    const progress = (current) => {
        const p = what();
        if (size > 0 && current <= size) {
            bar()?.setAttribute("max", String(size));
            bar()?.setAttribute("value", String(current));
            if (p) p.textContent = `Loading the app: ${kb(current)} of ${kb(size)} KB (${Math.round((100 * current) / size)} %)…`;
        } else if (p) {
            p.textContent = `Loading the app: ${kb(current)} KB…`;
        }
    };
    try {
        const [glue, response] = await Promise.all([import(script), fetch(wasm)]);
        if (!response.ok) throw new Error(`${wasm} answered HTTP ${response.status}`);
        let current = 0;
        const counted = response.body.pipeThrough(new TransformStream({
            transform(chunk, controller) {
                current += chunk.byteLength;
                progress(current);
                controller.enqueue(chunk);
            },
        }));
        await glue.default({ module_or_path: new Response(counted, { headers: response.headers, status: response.status }) });
        dispatchEvent(new CustomEvent("loopscope:started"));
    } catch (error) {
        const p = what();
        if (p) {
            p.className = "why";
            p.textContent = navigator.onLine === false
                ? "The app could not be downloaded: this device is offline, and this page has not been opened here before. Connect once, then it works offline."
                : `The app could not start: ${error?.message ?? error}. Reload the page; if it keeps failing, the site may be missing its .wasm file or serving it with the wrong type (application/wasm).`;
        }
        bar()?.remove();
    }
}

// Trunk's initializer hooks: the loading screen in index.html (#boot) shows the download's
// progress, and says plainly when the app cannot start. The app removes #boot once it runs.
export default function boot() {
    const what = () => document.getElementById("boot-what");
    const bar = () => document.getElementById("boot-progress");
    return {
        onStart: () => {},
        // `total` is the wasm's size as built (a release build's post-build step sets it; a
        // compressed transfer still counts unpacked bytes, so the share is right either way).
        onProgress: ({ current, total }) => {
            const p = what();
            const kb = (n) => Math.round(n / 1024);
            if (total > 0 && current <= total) {
                bar()?.setAttribute("max", String(total));
                bar()?.setAttribute("value", String(current));
                if (p) p.textContent = `Loading the app: ${kb(current)} of ${kb(total)} KB (${Math.round((100 * current) / total)} %)…`;
            } else if (p) {
                p.textContent = `Loading the app: ${kb(current)} KB…`;
            }
        },
        onComplete: () => {},
        onSuccess: () => {},
        onFailure: (error) => {
            const p = what();
            if (p) {
                p.className = "why";
                p.textContent = navigator.onLine === false
                    ? "The app could not be downloaded: this device is offline, and this page has not been opened here before. Connect once, then it works offline."
                    : `The app could not start: ${error?.message ?? error}. Reload the page; if it keeps failing, the site may be missing its .wasm file or serving it with the wrong type (application/wasm).`;
            }
            bar()?.remove();
        },
    };
}

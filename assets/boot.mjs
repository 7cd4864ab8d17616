// Trunk's initializer hooks: the loading screen in index.html (#boot) shows the download's
// progress, and says plainly when the app cannot start. The app removes #boot once it runs.
export default function boot() {
    const what = () => document.getElementById("boot-what");
    const bar = () => document.getElementById("boot-progress");
    return {
        onStart: () => {},
        // Trunk's `total` is the wasm's size before wasm-opt, and a compressed transfer counts
        // unpacked bytes: neither makes an honest percentage, so the bar stays indeterminate and
        // the text counts what has arrived.
        onProgress: ({ current }) => {
            const p = what();
            if (p) p.textContent = `Loading the app: ${Math.round(current / 1024)} KB…`;
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

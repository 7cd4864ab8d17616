// Loopscope's sandbox proxy for MCP Apps (docs/apps.md). It is loaded on an origin other than
// the page's (or, where there is none, in an opaque one) and only carries messages: from the
// page that framed it, on the origin named in ?host=, to the app's frame, and from the app's
// frame back to that page. The app's HTML comes once, in ui/notifications/sandbox-resource-ready,
// already carrying its Content-Security-Policy (engine/src/apps/csp.rs), and is shown in an inner
// frame without allow-same-origin: an opaque origin, so the app reaches neither this origin's
// storage nor the page's. It never navigates, opens windows or starts anything of its own.
"use strict";
(() => {
  const host = new URLSearchParams(location.search).get("host");
  if (!host || window.parent === window) return;
  let app = null;
  addEventListener("message", (e) => {
    if (e.source === window.parent && e.origin === host) {
      const m = e.data;
      if (m && m.method === "ui/notifications/sandbox-resource-ready") {
        if (app || !m.params || typeof m.params.html !== "string") return;
        app = document.createElement("iframe");
        app.setAttribute("sandbox", "allow-scripts allow-forms");
        app.setAttribute("allow", "");
        app.setAttribute("referrerpolicy", "no-referrer");
        app.title = "MCP App";
        app.srcdoc = m.params.html;
        document.body.appendChild(app);
        return;
      }
      if (app && app.contentWindow) app.contentWindow.postMessage(m, "*");
    } else if (app && e.source === app.contentWindow) {
      window.parent.postMessage(e.data, host);
    }
  });
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, host);
})();

// Loopscope's sandbox proxy for MCP Apps (docs/apps.md). It is loaded on an origin other than
// the page's (or, where there is none, in an opaque one) and only carries messages: from the
// page that framed it, on the origin named in ?host=, to the app's frame, and from the app's
// frame back to that page. The app's HTML comes once, in ui/notifications/sandbox-resource-ready,
// already carrying its Content-Security-Policy (engine/src/apps/csp.rs), and is shown in an inner
// frame without allow-same-origin: an opaque origin, so the app reaches neither this origin's
// storage nor the page's. It never navigates, opens windows or starts anything of its own.
// The app's frame stays the document it was given: this page's policy (sandbox.html) allows no
// frame to load anything, so a navigation of the app's frame is blocked, and any second load of
// it (a navigation tried, a reload) ends the app: the frame is removed and the page told, so no
// other document can speak as the app.
"use strict";
(() => {
  const host = new URLSearchParams(location.search).get("host");
  if (!host || window.parent === window) return;
  const DOCUMENT_CHANGED = "ui/notifications/x-loopscope-app-document-changed";
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
        let loads = 0;
        const gone = () => {
          if (!app) return;
          app.remove();
          app = null;
          window.parent.postMessage({ jsonrpc: "2.0", method: DOCUMENT_CHANGED, params: {} }, host);
        };
        app.addEventListener("load", () => { if (++loads > 1) gone(); });
        document.addEventListener("securitypolicyviolation", (v) => { if (v.effectiveDirective === "frame-src") gone(); });
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

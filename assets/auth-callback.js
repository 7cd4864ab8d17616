// The way back from an authorization server's sign-in page. The URL (with the code and the
// state) goes to the Loopscope page that asked for it and nowhere else: on a BroadcastChannel,
// which only pages of this origin share (the sign-in window was opened with noopener, so it has
// no opener to talk to). Loopscope takes it only for a state it is waiting for, then checks the
// issuer; this page reads nothing.
(function () {
    var message = { type: "loopscope-auth", url: location.href };
    var sent = false;
    try { new BroadcastChannel("loopscope-auth").postMessage(message); sent = true; } catch (e) {}
    // Keep the code out of this window's history.
    history.replaceState(null, "", location.pathname);
    document.getElementById("status").textContent = sent
        ? "Done: Loopscope has the answer, and this window can be closed. If Loopscope did not go on, " +
          "return to it and press Sign in on the server's card."
        : "This browser cannot hand the sign-in back (no BroadcastChannel): use a current browser.";
    if (sent) setTimeout(function () { window.close(); }, 300);
})();

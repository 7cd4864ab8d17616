// Node preload (`node --require ./loopback.cjs server.js`): forces every listening socket onto
// 127.0.0.1. Real MCP servers from npm call listen(port) with no host, which means every
// interface; tests must never bind anything but loopback.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    // Bound at once, as listen(port) binds: some callers read address() right after listen()
    // (the conformance suite's scenario servers do). A host would make the bind wait for a
    // DNS lookup, even of "127.0.0.1".
    const callback = args.find((a) => typeof a === "function");
    if (callback) this.once("listening", callback);
    this._listen2("127.0.0.1", Number(args[0]), 4, 511, -1, 0);
    return this;
  }
  if (args[0] && typeof args[0] === "object" && !("path" in args[0])) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};

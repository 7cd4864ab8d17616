// Node preload (`node --require ./loopback.cjs server.js`): forces every listening socket onto
// 127.0.0.1. Real MCP servers from npm call listen(port) with no host, which means every
// interface; tests must never bind anything but loopback.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const port = args[0];
    const rest = args.slice(1).filter((a) => typeof a === "function" || typeof a === "number");
    const callback = rest.find((a) => typeof a === "function");
    return listen.call(this, { port: Number(port), host: "127.0.0.1" }, callback);
  }
  if (args[0] && typeof args[0] === "object" && !("path" in args[0])) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};

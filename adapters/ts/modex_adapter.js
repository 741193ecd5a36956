// Modex adapter kit for JavaScript and TypeScript: the implementation-adapter
// protocol (modex-adapter/1, see docs/adapter-protocol.md) written once, so
// that an adapter is only per-action code.
//
//   const { Adapter, Refused } = require("./modex_adapter");
//   const adapter = new Adapter("stack (js)");
//   const stack = [];
//   adapter.action("Push", (x) => {
//     if (stack.length === 3) throw new Refused("the stack is full");
//     stack.push(x);
//   });
//   adapter.onReset(() => { stack.length = 0; });
//   adapter.run();
//
// CommonJS, Node 18+, no dependencies. Copy this file (and modex_adapter.d.ts
// for TypeScript) next to your adapter.
"use strict";

const net = require("node:net");
const readline = require("node:readline");

const PROTOCOL = "modex-adapter/1";

/** Thrown by a handler when the implementation does not accept the action now. */
class Refused extends Error {
  constructor(reason = "refused") {
    super(String(reason));
    this.name = "Refused";
    this.reason = String(reason);
  }
}

/** Thrown by a handler whose action the implementation does not have (yet). */
class NotImplemented extends Error {
  constructor(reason = "not implemented") {
    super(String(reason));
    this.name = "NotImplemented";
    this.reason = String(reason);
  }
}

// ------------------------------------------------------------------ values

/** Converts a parsed JSON value of the protocol to a native value. */
function decode(x) {
  if (Array.isArray(x)) return x.map(decode);
  if (x === null || typeof x !== "object") return x;
  const keys = Object.keys(x);
  if (keys.length === 1) {
    if (keys[0] === "bytes" && typeof x.bytes === "string") return Buffer.from(x.bytes, "utf8");
    if (keys[0] === "set" && Array.isArray(x.set)) return new Set(x.set.map(decode));
    if (keys[0] === "dict" && Array.isArray(x.dict)) {
      const m = new Map();
      for (const kv of x.dict) {
        if (!Array.isArray(kv) || kv.length !== 2) {
          throw new TypeError(`a dict entry must be [key, value], not ${JSON.stringify(kv)}`);
        }
        m.set(decode(kv[0]), decode(kv[1]));
      }
      return m;
    }
  }
  return Object.fromEntries(keys.map((k) => [k, decode(x[k])]));
}

/** The encoded items of a set in a deterministic order: sorted when they are
 * all numbers, all strings or all booleans, else by their JSON text. */
function sortItems(items) {
  const kinds = new Set(items.map((e) => typeof e));
  const kind = kinds.size === 1 ? [...kinds][0] : "";
  if (kind === "number" || kind === "boolean") return items.sort((a, b) => Number(a) - Number(b));
  if (kind === "string") return items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keyed = items.map((e) => [JSON.stringify(e), e]);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map((p) => p[1]);
}

/** Converts a native value to its JSON value in the protocol. */
function encode(v) {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(`cannot send ${v} to Modex`);
      return v;
    case "bigint":
      if (!Number.isSafeInteger(Number(v))) throw new TypeError(`cannot send ${v}n to Modex (not a safe integer)`);
      return Number(v);
    case "object":
      break;
    default:
      throw new TypeError(`cannot send a ${typeof v} to Modex`);
  }
  if (Array.isArray(v)) return Array.from(v, encode);
  if (v instanceof Set) return { set: sortItems(Array.from(v, encode)) };
  if (v instanceof Map) return { dict: Array.from(v, ([k, e]) => [encode(k), encode(e)]) };
  if (ArrayBuffer.isView(v)) return { bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("utf8") };
  if (v instanceof ArrayBuffer) return { bytes: Buffer.from(v).toString("utf8") };
  if (typeof v.toJSON === "function") return encode(v.toJSON());
  return Object.fromEntries(Object.keys(v).map((k) => [k, encode(v[k])]));
}

/** "<ErrorType>: <text>" for an error answer. */
function describe(e) {
  if (e instanceof Error) {
    const name = e.name || (e.constructor && e.constructor.name) || "Error";
    return e.message ? `${name}: ${e.message}` : name;
  }
  return `${typeof e}: ${String(e)}`;
}

function log(msg) {
  process.stderr.write(`modex_adapter: ${msg}\n`);
}

// ------------------------------------------------------------------ stdout

let realStdoutWrite = null;

/** Keeps the real process.stdout.write for the protocol, and sends
 * console.log/info/debug and any other process.stdout.write to stderr, so
 * that a stray log cannot break the protocol. */
function takeStdout() {
  if (realStdoutWrite) return realStdoutWrite;
  realStdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  console.log = console.info = console.debug = console.error;
  return realStdoutWrite;
}

/** The address of --listen ADDR or --listen=ADDR in argv, or undefined. */
function listenArg(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--listen" && i + 1 < argv.length) return argv[i + 1];
    if (argv[i].startsWith("--listen=")) return argv[i].slice("--listen=".length);
  }
  return undefined;
}

// ------------------------------------------------------------------ adapter

/** One adapter: register handlers with action(), onReset() and onClose(),
 * then call run(). */
class Adapter {
  constructor(name) {
    this.name = String(name);
    this._handlers = new Map();
    this._reset = null;
    this._close = null;
    this._write = null; // (line, callback) => void while a connection is open
    this._writing = 0; // lines written whose callback has not come yet
    this._drained = [];
    this._queue = [];
    this._busy = false;
    this._eof = false;
    this._stopping = false;
    takeStdout();
  }

  /** Registers handler as the action `name`'s: called with the decoded args,
   * it returns the output (or a Promise of it; undefined for none). */
  action(name, handler) {
    if (typeof handler !== "function") throw new TypeError(`the handler of ${name} is not a function`);
    if (this._handlers.has(name)) throw new Error(`action ${name} has a handler already`);
    this._handlers.set(name, handler);
    return this;
  }

  /** Registers fn, called (and awaited) on every reset: it must bring the
   * implementation back to its initial state and stop whatever the previous
   * run started before it returns. */
  onReset(fn) {
    this._reset = fn;
    return this;
  }

  /** Registers fn, called (and awaited) once when the adapter stops:
   * shutdown, end of input, SIGTERM or SIGINT. */
  onClose(fn) {
    this._close = fn;
    return this;
  }

  /** Sends the event action(...args) to Modex at once; dropped while no
   * connection is open. */
  emit(action, ...args) {
    this._send({ type: "event", action: String(action), args: args.map(encode) });
  }

  _send(msg) {
    const line = JSON.stringify(msg) + "\n";
    if (!this._write) return;
    this._writing++;
    this._write(line, () => {
      if (--this._writing === 0) this._drained.splice(0).forEach((f) => f());
    });
  }

  /** Resolves once every line written so far is out (or after a second). */
  _flush() {
    if (this._writing === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this._drained.push(resolve);
      setTimeout(resolve, 1000);
    });
  }

  // ---------------------------------------------------------- requests

  async _answer(req) {
    const id = req.id;
    switch (req.type) {
      case "hello": {
        if (req.protocol !== undefined && req.protocol !== PROTOCOL) {
          log(`Modex speaks ${JSON.stringify(req.protocol)}, this library ${PROTOCOL}`);
        }
        const ans = { type: "hello", id, protocol: PROTOCOL, name: this.name, features: ["coverage"] };
        const actions = Array.isArray(req.actions) ? req.actions : [];
        const missing = actions.filter((a) => !this._handlers.has(a));
        if (missing.length > 0) ans.unimplemented = missing;
        return ans;
      }
      case "reset":
        try {
          if (this._reset) await this._reset();
        } catch (e) {
          log(`reset: ${(e && e.stack) || describe(e)}`);
          return { type: "error", id, message: `reset: ${describe(e)}` };
        }
        return { type: "ok", id };
      case "invoke":
        return this._invoke(req);
      case "coverage":
        return { type: "coverage", id, format: "none", reason: "the JavaScript kit does not measure coverage yet (write an LCOV file into MODEX_COVERAGE_DIR)" };
    }
    if (id === undefined || id === null) {
      log(`ignoring a request without id: ${JSON.stringify(req).slice(0, 200)}`);
      return null;
    }
    return { type: "error", id, message: `unknown request type ${req.type}` };
  }

  async _invoke(req) {
    const { id, action } = req;
    const handler = this._handlers.get(action);
    if (!handler) return { type: "unimplemented", id, reason: `no handler for action ${action}` };
    try {
      const args = req.args === undefined || req.args === null ? [] : req.args;
      if (!Array.isArray(args)) throw new TypeError(`args must be an array, not ${JSON.stringify(args)}`);
      const out = await handler(...args.map(decode));
      return { type: "result", id, output: encode(out) };
    } catch (e) {
      if (e instanceof Refused) return { type: "refused", id, reason: e.reason };
      if (e instanceof NotImplemented) return { type: "unimplemented", id, reason: e.reason };
      log(`${action}: ${(e && e.stack) || describe(e)}`);
      return { type: "error", id, message: describe(e) };
    }
  }

  async _handle(line) {
    line = line.trim();
    if (!line) return;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      log(`ignoring a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
      return;
    }
    if (req === null || typeof req !== "object" || Array.isArray(req)) {
      log(`ignoring a line that is not a JSON object: ${JSON.stringify(line.slice(0, 200))}`);
      return;
    }
    if (req.type === "shutdown") {
      this._stop();
      return;
    }
    let ans;
    try {
      ans = await this._answer(req);
    } catch (e) {
      ans = { type: "error", id: req.id, message: describe(e) };
    }
    if (ans) this._send(ans);
  }

  _received(line) {
    this._queue.push(line);
    this._pump();
  }

  /** Handles the queued requests one at a time, in order. */
  async _pump() {
    if (this._busy) return;
    this._busy = true;
    while (this._queue.length > 0 && !this._stopping) await this._handle(this._queue.shift());
    this._busy = false;
    if (this._eof) this._stop();
  }

  _ended() {
    this._eof = true;
    if (!this._busy) this._stop();
  }

  // ---------------------------------------------------------- running

  /** Speaks the protocol on stdin/stdout, or with options.listen
   * "HOST:PORT" (or --listen HOST:PORT among the program's arguments) on the
   * one TCP connection it accepts there. Stops on shutdown, end of input,
   * SIGTERM or SIGINT, awaits the onClose hook and exits the process (status
   * 0; 1 when the hook threw). */
  run(options = {}) {
    const listen = options.listen != null ? options.listen : listenArg(process.argv.slice(2));
    for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => this._stop());
    if (listen == null) {
      const write = takeStdout();
      process.stdout.on("error", (e) => this._lost(e));
      this._write = write;
      this._read(process.stdin);
    } else {
      this._listen(String(listen));
    }
    return new Promise(() => {});
  }

  _read(input) {
    const rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
    rl.on("line", (line) => this._received(line));
    rl.on("close", () => this._ended());
    rl.on("error", () => this._ended()); // the input's error, logged by _lost
  }

  _lost(e) {
    if (this._write) log(`lost the connection to Modex (${e.message}); dropping what follows`);
    this._write = null;
  }

  _listen(listen) {
    const colon = listen.lastIndexOf(":");
    const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, "$1") || undefined;
    const port = Number(listen.slice(colon + 1));
    const server = net.createServer((sock) => {
      server.close();
      sock.setNoDelay(true);
      sock.on("error", (e) => this._lost(e));
      sock.on("close", () => this._ended()); // also after a reset, which readline misses
      this._write = (line, cb) => sock.write(line, cb);
      this._read(sock);
    });
    server.on("error", (e) => {
      log(`cannot listen on ${listen}: ${e.message}`);
      process.exit(1);
    });
    server.listen({ host, port }, () => {
      const a = server.address();
      const host = a.family === "IPv6" || a.family === 6 ? `[${a.address}]` : a.address;
      process.stderr.write(`listening on ${host}:${a.port}\n`);
    });
  }

  /** Calls the close hook once, writes out what is pending, exits. */
  async _stop() {
    if (this._stopping) return;
    this._stopping = true;
    let status = 0;
    try {
      if (this._close) await this._close();
    } catch (e) {
      log(`close: ${(e && e.stack) || describe(e)}`);
      status = 1;
    }
    await this._flush();
    this._write = null;
    process.exit(status);
  }
}

module.exports = { Adapter, Refused, NotImplemented, PROTOCOL, encode, decode };

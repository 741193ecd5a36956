// Tests of modex_adapter.js (node --test): each one runs testdata/kitchen.js
// as a child process on real pipes (or TCP) and speaks the protocol to it.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const net = require("node:net");
const path = require("node:path");
const readline = require("node:readline");

const KITCHEN = path.join(__dirname, "testdata", "kitchen.js");
const TIMEOUT = 5000;
const PROTOCOL = "modex-adapter/1";

/** The lines of a stream, read one by one with next() (null at its end). */
class Lines {
  constructor(stream) {
    this.items = [];
    this.waiters = [];
    this.ended = false;
    const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
    rl.on("line", (l) => this.put(l));
    rl.on("close", () => {
      this.ended = true;
      this.waiters.splice(0).forEach((w) => w(null));
    });
  }

  put(line) {
    const w = this.waiters.shift();
    if (w) w(line);
    else this.items.push(line);
  }

  next(what) {
    if (this.items.length > 0) return Promise.resolve(this.items.shift());
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const waiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no line within ${TIMEOUT} ms; ${what()}`));
      }, TIMEOUT);
      this.waiters.push(waiter);
    });
  }
}

/** A running kitchen adapter. */
class Child {
  constructor(args = [], env = {}) {
    this.proc = spawn(process.execPath, [KITCHEN, ...args], { env: { ...process.env, ...env } });
    this.proc.stdin.on("error", () => {});
    this.out = new Lines(this.proc.stdout);
    this.err = "";
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d) => (this.err += d));
    this.exited = new Promise((resolve) => this.proc.on("close", (code, signal) => resolve({ code, signal })));
  }

  send(msg) {
    this.proc.stdin.write(typeof msg === "string" ? msg : JSON.stringify(msg) + "\n");
  }

  async line() {
    const l = await this.out.next(() => `stderr: ${this.err}`);
    if (l === null) throw new Error(`the adapter closed its output; stderr: ${this.err}`);
    try {
      return JSON.parse(l);
    } catch {
      throw new Error(`not a JSON line: ${l}`);
    }
  }

  ask(msg) {
    this.send(msg);
    return this.line();
  }

  invoke(action, args, id = 3) {
    return this.ask({ type: "invoke", id, action, args });
  }

  hello(actions) {
    const msg = { type: "hello", id: 1, protocol: PROTOCOL, model: "kitchen" };
    if (actions) msg.actions = actions;
    return this.ask(msg);
  }

  /** The exit status (a failure after TIMEOUT ms). */
  async exit() {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the adapter did not exit; stderr: ${this.err}`)), TIMEOUT);
    });
    try {
      const { code, signal } = await Promise.race([this.exited, timeout]);
      return signal ? signal : code;
    } finally {
      clearTimeout(timer);
    }
  }

  kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
  }
}

/** Runs fn on a new child, killed afterwards. */
async function withChild(fn, args, env) {
  const c = new Child(args, env);
  try {
    await fn(c);
  } finally {
    c.kill();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("hello reports the unimplemented actions", () =>
  withChild(async (c) => {
    assert.deepEqual(await c.hello(["Echo", "Pop", "Full", "Peek"]), {
      type: "hello", id: 1, protocol: PROTOCOL, name: "kitchen (js)", features: ["coverage"], unimplemented: ["Pop", "Peek"],
    });
    const all = await c.ask({ type: "hello", id: 2, protocol: PROTOCOL, actions: ["Echo"] });
    assert.equal("unimplemented" in all, false);
    assert.deepEqual(await c.ask({ type: "hello", id: 3, protocol: PROTOCOL }), {
      type: "hello", id: 3, protocol: PROTOCOL, name: "kitchen (js)", features: ["coverage"],
    });
  }));

test("registration: chaining, duplicates and non-functions", () =>
  withChild(async (c) => {
    await c.hello();
    assert.deepEqual((await c.invoke("Registration", [])).output, ["Error", "TypeError", true]);
  }));

test("decoding", () =>
  withChild(async (c) => {
    const cases = [
      [null, "null"], [true, "boolean"], [1, "number"], [1.5, "number"], ["s", "string"],
      [[1, "a"], "Array[number,string]"],
      [{ set: [1, "a"] }, "Set{number,string}"],
      [{ set: [[1, "a"]] }, "Set{Array[number,string]}"],
      [{ dict: [["a", [1]], [[1, 2], { bytes: "x" }]] }, "Map{Array[number,number]:Buffer,string:Array[number]}"],
      [{ dict: [[{ set: ["a"] }, null]] }, "Map{Set{string}:null}"],
      [{ bytes: "hi" }, "Buffer"],
      [{ host: "h", port: 1 }, "Object{host:string,port:number}"],
      [{ set: 1 }, "Object{set:number}"],
      [[[{ set: [] }], { dict: [] }], "Array[Array[Set{}],Map{}]"],
    ];
    let id = 10;
    for (const [arg, want] of cases) {
      id++;
      assert.deepEqual(await c.invoke("Describe", [arg], id), { type: "result", id, output: want }, JSON.stringify(arg));
    }
    assert.deepEqual((await c.invoke("Echo", [{ bytes: "é\u0000" }])).output, { bytes: "é\u0000" });
    const bad = await c.invoke("Echo", [{ dict: [[1]] }]);
    assert.equal(bad.type, "error");
  }));

test("encoding", () =>
  withChild(async (c) => {
    const cases = [
      ["set", { set: [1, 2, 3, 10] }], // numbers, not by their text
      ["strset", { set: ["a", "b", "c"] }],
      ["mixedset", { set: ["a", 1] }], // by JSON text
      ["arrayset", { set: [[1, "a"], [2, "b"]] }],
      ["bytes", { bytes: "hi\u0000" }],
      ["badbytes", { bytes: "\ufffd" }],
      ["uint8", { bytes: "ab" }],
      ["map", { dict: [["a", { set: [1] }], [[1, 2], [true, 1.5]]] }],
      ["nested", [{ dict: [["k", [{ bytes: "x" }]]] }, { set: [] }]],
      ["undefined", null],
      ["null", null],
      ["float", 1.5],
      ["bigint", 5],
      ["object", { host: "h", port: 1 }],
    ];
    for (const [kind, want] of cases) {
      assert.deepEqual(await c.invoke("Make", [kind]), { type: "result", id: 3, output: want }, kind);
    }
    const value = { dict: [[{ set: ["x", "y"] }, [1, { bytes: "b" }]]] };
    assert.deepEqual((await c.invoke("Echo", [value])).output, value);
    assert.deepEqual((await c.invoke("AsyncEcho", [value])).output, value);
    assert.deepEqual((await c.invoke("Echo", [1, "two"])).output, [1, "two"]);
  }));

test("refused", () =>
  withChild(async (c) => {
    await c.hello();
    assert.deepEqual(await c.invoke("Full", []), { type: "refused", id: 3, reason: "the stack is full" });
    assert.deepEqual(await c.invoke("AsyncFull", [], 4), { type: "refused", id: 4, reason: "full, later" });
  }));

test("unimplemented", () =>
  withChild(async (c) => {
    await c.hello();
    const todo = await c.invoke("Todo", [], 4);
    assert.equal(todo.type, "unimplemented");
    assert.equal(todo.id, 4);
    assert.ok(todo.reason);
    assert.deepEqual(await c.invoke("TodoReason", [], 5), {
      type: "unimplemented", id: 5, reason: "Pop waits for the next release",
    });
    const pop = await c.invoke("Pop", [], 6);
    assert.equal(pop.type, "unimplemented");
    assert.match(pop.reason, /Pop/);
  }));

test("errors, and answering afterwards", () =>
  withChild(async (c) => {
    await c.hello();
    assert.deepEqual(await c.invoke("Boom", [], 4), { type: "error", id: 4, message: "RangeError: boom" });
    assert.deepEqual(await c.invoke("AsyncBoom", [], 5), { type: "error", id: 5, message: "TypeError: async boom" });
    assert.deepEqual(await c.invoke("Echo", [7], 6), { type: "result", id: 6, output: 7 });
    for (const [id, kind] of [[7, "nan"], [8, "function"]]) {
      const ans = await c.invoke("Make", [kind], id);
      assert.equal(ans.type, "error", kind);
      assert.match(ans.message, /^TypeError: /);
    }
    c.send("this is not JSON\n");
    assert.deepEqual(await c.ask({ type: "frob", id: 9 }), { type: "error", id: 9, message: "unknown request type frob" });
    assert.equal((await c.invoke("Echo", ["still here"], 10)).output, "still here");
    assert.match(c.err, /not JSON/);
    assert.match(c.err, /RangeError: boom/);
  }));

test("reset", () =>
  withChild(async (c) => {
    await c.hello();
    assert.deepEqual(await c.ask({ type: "reset", id: 2 }), { type: "ok", id: 2 });
    assert.deepEqual(await c.ask({ type: "reset", id: 3 }), { type: "ok", id: 3 });
    assert.equal((await c.invoke("Resets", [], 4)).output, 2);
    await c.invoke("FailNextReset", [], 5);
    assert.deepEqual(await c.ask({ type: "reset", id: 6 }), { type: "error", id: 6, message: "reset: Error: cannot reset" });
    assert.deepEqual(await c.ask({ type: "reset", id: 7 }), { type: "ok", id: 7 });
    assert.equal((await c.invoke("Resets", [], 8)).output, 3);
  }));

test("requests sent together are handled one at a time, in order", () =>
  withChild(async (c) => {
    await c.hello();
    for (let id = 10; id < 15; id++) c.send({ type: "invoke", id, action: "Slow", args: [id] });
    for (let id = 10; id < 15; id++) assert.deepEqual(await c.line(), { type: "result", id, output: [id, 1] });
  }));

test("events from callbacks and timers during a pending async command", () =>
  withChild(async (c) => {
    await c.hello();
    const pad = "x".repeat(70000); // lines longer than a pipe's buffer
    c.send({ type: "invoke", id: 3, action: "Burst", args: [100, pad] });
    const ticks = [];
    const answers = [];
    let started = 0;
    while (ticks.length < 100 || answers.length === 0) {
      const msg = await c.line(); // fails on a line that is not JSON (interleaved)
      if (msg.type === "event" && msg.action === "Tick") {
        assert.deepEqual(msg.args, [ticks.length, pad]); // in emit order
        ticks.push(msg);
      } else if (msg.type === "event" && msg.action === "Started") started++;
      else answers.push(msg);
    }
    assert.deepEqual(answers, [{ type: "result", id: 3, output: pad.repeat(3) }]);
    assert.equal(started, 1);
    assert.deepEqual(await c.ask({ type: "reset", id: 4 }), { type: "ok", id: 4 });
  }));

test("console.log and process.stdout go to stderr", () =>
  withChild(async (c) => {
    await c.hello();
    assert.deepEqual(await c.invoke("Print", []), { type: "result", id: 3, output: "printed" });
    c.send({ type: "shutdown" });
    assert.equal(await c.exit(), 0);
    assert.equal(await c.out.next(() => ""), null, "more on stdout");
    for (const text of ["printed before run", "console.log", "console.info", "console.debug", "process.stdout.write"]) {
      assert.match(c.err, new RegExp(text.replace(".", "\\.")));
    }
  }));

test("end of input: exit 0 after onClose", () =>
  withChild(async (c) => {
    await c.hello();
    c.proc.stdin.end();
    assert.equal(await c.exit(), 0);
    assert.match(c.err, /on_close called/);
  }));

test("shutdown: exit 0 after onClose", () =>
  withChild(async (c) => {
    await c.hello();
    c.send({ type: "shutdown" });
    assert.equal(await c.exit(), 0);
    assert.equal(c.err.split("on_close called").length - 1, 1);
  }));

for (const sig of ["SIGTERM", "SIGINT"]) {
  test(`${sig}: exit 0 after onClose`, () =>
    withChild(async (c) => {
      await c.hello();
      c.proc.kill(sig);
      assert.equal(await c.exit(), 0);
      assert.equal(c.err.split("on_close called").length - 1, 1);
    }));
}

test("SIGTERM during a pending command: exit 0 after onClose", () =>
  withChild(async (c) => {
    await c.hello();
    c.send({ type: "invoke", id: 3, action: "Sleep", args: [30000] });
    await sleep(100);
    c.proc.kill("SIGTERM");
    assert.equal(await c.exit(), 0);
    assert.match(c.err, /on_close called/);
  }));

async function checkTCP(c) {
  const deadline = Date.now() + TIMEOUT;
  let m;
  while (!(m = /listening on 127\.0\.0\.1:(\d+)/.exec(c.err))) {
    if (Date.now() > deadline) assert.fail(`no 'listening on' line; stderr: ${c.err}`);
    await sleep(20);
  }
  const port = Number(m[1]);
  assert.notEqual(port, 0);
  const sock = net.connect(port, "127.0.0.1");
  const lines = new Lines(sock);
  const ask = async (msg) => {
    sock.write(JSON.stringify(msg) + "\n");
    return JSON.parse(await lines.next(() => c.err));
  };
  try {
    const hello = await ask({ type: "hello", id: 1, protocol: PROTOCOL, actions: ["Pop"] });
    assert.deepEqual(hello.unimplemented, ["Pop"]);
    assert.deepEqual(await ask({ type: "invoke", id: 2, action: "Echo", args: [{ set: [2, 1] }] }), {
      type: "result", id: 2, output: { set: [1, 2] },
    });
  } finally {
    sock.end();
  }
  assert.equal(await c.exit(), 0);
  assert.match(c.err, /on_close called/);
}

test("TCP with --listen", () =>
  withChild(async (c) => {
    await checkTCP(c);
    assert.equal(await c.out.next(() => ""), null, "protocol lines on stdout in TCP mode");
  }, ["--listen", "127.0.0.1:0"]));

test("TCP: a reset connection ends the adapter too", () =>
  withChild(async (c) => {
    let m;
    while (!(m = /listening on 127\.0\.0\.1:(\d+)/.exec(c.err))) await sleep(20);
    const sock = net.connect(Number(m[1]), "127.0.0.1");
    await new Promise((resolve) => sock.on("connect", resolve));
    sock.write(JSON.stringify({ type: "invoke", id: 2, action: "Sleep", args: [200] }) + "\n");
    await sleep(50);
    sock.resetAndDestroy(); // a reset, not an orderly end
    assert.equal(await c.exit(), 0);
    assert.match(c.err, /on_close called/);
  }, ["--listen=127.0.0.1:0"]));

test("TCP with run({ listen })", () => withChild(checkTCP, [], { KITCHEN_LISTEN: "127.0.0.1:0" }));

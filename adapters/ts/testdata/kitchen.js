// An adapter exercising every part of modex_adapter.js, run by
// modex_adapter.test.js as a child process.
"use strict";

const { Adapter, Refused, NotImplemented } = require("../modex_adapter");

const adapter = new Adapter("kitchen (js)");
console.log("printed before run"); // must reach stderr, not the protocol

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let resets = 0;
let failNextReset = false;
let bursts = []; // Promises of the bursts still emitting
let active = 0;
let maxActive = 0;

function describe(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return `Array[${v.map(describe).join(",")}]`;
  if (v instanceof Set) return `Set{${[...v].map(describe).sort().join(",")}}`;
  if (v instanceof Map) return `Map{${[...v].map(([k, e]) => `${describe(k)}:${describe(e)}`).sort().join(",")}}`;
  if (Buffer.isBuffer(v)) return `Buffer`;
  if (typeof v === "object") return `Object{${Object.keys(v).map((k) => `${k}:${describe(v[k])}`).sort().join(",")}}`;
  return typeof v;
}

const makes = {
  set: () => new Set([10, 3, 1, 2]),
  strset: () => new Set(["b", "c", "a"]),
  mixedset: () => new Set([1, "a"]),
  arrayset: () => new Set([[2, "b"], [1, "a"]]),
  bytes: () => Buffer.from("hi\0"),
  badbytes: () => Buffer.from([0xff]),
  uint8: () => new Uint8Array([97, 98]),
  map: () => new Map([["a", new Set([1])], [[1, 2], [true, 1.5]]]),
  nested: () => [new Map([["k", [Buffer.from("x")]]]), new Set()],
  undefined: () => undefined,
  null: () => null,
  float: () => 1.5,
  bigint: () => 5n,
  object: () => ({ host: "h", port: 1 }),
  nan: () => NaN,
  function: () => () => 1,
};

const chained = adapter
  .action("Echo", (...args) => (args.length === 1 ? args[0] : args))
  .action("Describe", (x) => describe(x))
  .action("Make", (kind) => makes[kind]())
  .action("Registration", () => [...registration, chained === adapter])
  .action("AsyncEcho", async (x) => {
    await sleep(5);
    return x;
  })
  .action("Slow", async (id) => {
    active++;
    maxActive = Math.max(active, maxActive);
    await sleep(10);
    active--;
    return [id, maxActive];
  })
  .action("Full", () => {
    throw new Refused("the stack is full");
  })
  .action("AsyncFull", async () => {
    await sleep(1);
    throw new Refused("full, later");
  })
  .action("Todo", () => {
    throw new NotImplemented();
  })
  .action("TodoReason", async () => {
    throw new NotImplemented("Pop waits for the next release");
  })
  .action("Boom", () => {
    throw new RangeError("boom");
  })
  .action("AsyncBoom", async () => {
    await sleep(1);
    throw new TypeError("async boom");
  })
  .action("Burst", async (n, pad) => {
    // n events from setImmediate and timer callbacks, some while this
    // handler awaits, some after it answered; each carries its emit order.
    let seq = 0;
    bursts.push(
      new Promise((resolve) => {
        const tick = () => {
          adapter.emit("Tick", seq++, pad);
          if (seq === n) resolve();
          else if (seq % 2) setImmediate(tick);
          else setTimeout(tick, 0);
        };
        setImmediate(tick);
      }),
    );
    adapter.emit("Started", n);
    await sleep(10);
    return pad.repeat(3);
  })
  .action("Print", () => {
    console.log("hello from console.log");
    console.info("hello from console.info");
    console.debug("hello from console.debug");
    process.stdout.write("hello from process.stdout.write\n");
    return "printed";
  })
  .action("Sleep", (ms) => sleep(ms).then(() => "slept"))
  .action("Resets", () => resets)
  .action("FailNextReset", () => {
    failNextReset = true;
  });

const registration = [];
for (const bad of [() => adapter.action("Echo", () => 1), () => adapter.action("Other", 3)]) {
  try {
    bad();
    registration.push("no error");
  } catch (e) {
    registration.push(e.constructor.name);
  }
}

adapter.onReset(async () => {
  await Promise.all(bursts);
  bursts = [];
  if (failNextReset) {
    failNextReset = false;
    throw new Error("cannot reset");
  }
  resets++;
});

adapter.onClose(async () => {
  await sleep(5); // awaited before the process exits
  process.stderr.write("on_close called\n");
});

if (process.env.KITCHEN_LISTEN) adapter.run({ listen: process.env.KITCHEN_LISTEN });
else adapter.run();

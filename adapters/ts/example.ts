// A small typed adapter: a bounded stack. lib_test.go compiles it with tsc
// (--strict, against modex_adapter.d.ts) and speaks the protocol to it.
import { Adapter, Encodable, NotImplemented, Refused, Value } from "./modex_adapter";

const adapter = new Adapter("stack (ts)");
const stack: number[] = [];
let closed = false;

adapter
  .action("Push", (x: number): void => {
    if (stack.length >= 3) throw new Refused("the stack is full");
    stack.push(x);
  })
  .action("Pop", async (): Promise<number> => {
    const x = stack.pop();
    if (x === undefined) throw new Refused("the stack is empty");
    await Promise.resolve();
    adapter.emit("Popped", x, new Set(stack));
    return x;
  })
  .action("Contents", (): Encodable => new Set(stack))
  .action("Label", (names: Map<Value, Value>, raw: Uint8Array) => [names.size, raw.length])
  .action("Peek", () => {
    throw new NotImplemented("Peek comes later");
  });

adapter.onReset(() => {
  stack.length = 0;
});
adapter.onClose(async () => {
  closed = true;
});

// The typings reject what the library cannot do (never called: tsc checks it).
export function typingChecks(a: Adapter): void {
  // @ts-expect-error: an action's name is a string
  a.action(3, () => null);
  // @ts-expect-error: a handler is a function
  a.action("Bad", 3);
  // @ts-expect-error: a symbol cannot be sent
  a.emit("Bad", Symbol("s"));
  // @ts-expect-error: run's listen is a "HOST:PORT" string
  void a.run({ listen: 7000 });
  a.onClose(() => closed);
}

void adapter.run();

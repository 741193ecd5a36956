/**
 * The adapter of stack for the Modex model "stack" (stack.star), made by modex adapter
 * new. modex_adapter.js (with its typings, modex_adapter.d.ts) is the kit's library.
 *
 * Fill in each action: make the system under test do it and return its
 * output (null when the model's action returns nothing; a Promise is
 * awaited). Until you do, an action throws NotImplemented: Modex skips it
 * and tests the rest. Throw new Refused(reason) when the system refuses an
 * action the model allows; any other exception stops the test as a crash
 * of the implementation. console.log goes to standard error.
 *
 * Run: npx tsc -p tsconfig.json, then node adapter.js (the project file's [adapter] command).
 */
import { Adapter, NotImplemented } from "./modex_adapter";

const adapter = new Adapter("stack (ts)");

// Brings the system back to the model's initial state, before every run.
// Stop what the last run started first: Modex drops the events that come
// before the reset is done.
adapter.onReset(() => {
  // TODO(reset)
});

/**
 * Push(x).
 *
 * x (int): 1, 2
 *
 * As the model states it (stack.star:8):
 *     def Push(s, x):
 *         require(len(s.stack) < CAPACITY, "the stack is full")
 *         s.stack.append(x)
 */
adapter.action("Push", (x: number) => {
  throw new NotImplemented(); // TODO(Push): do it on the system under test, return its output
});

/**
 * Pop().
 *
 * As the model states it (stack.star:12):
 *     def Pop(s):
 *         require(len(s.stack) > 0, "the stack is empty")
 *         return s.stack.pop()
 */
adapter.action("Pop", () => {
  throw new NotImplemented(); // TODO(Pop): do it on the system under test, return its output
});

adapter.run();

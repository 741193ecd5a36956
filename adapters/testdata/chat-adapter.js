// @ts-check
/**
 * The adapter of chat for the Modex model "chat" (chat.star), made by modex adapter
 * new. modex_adapter.js (with its typings, modex_adapter.d.ts) is the kit's library.
 *
 * Fill in each action: make the system under test do it and return its
 * output (null when the model's action returns nothing; a Promise is
 * awaited). Until you do, an action throws NotImplemented: Modex skips it
 * and tests the rest. Throw new Refused(reason) when the system refuses an
 * action the model allows; any other exception stops the test as a crash
 * of the implementation. console.log goes to standard error.
 *
 * Run: node adapter.js (the project file's [adapter] command).
 */
const { Adapter, NotImplemented } = require("./modex_adapter");

const adapter = new Adapter("chat (js)");

// Brings the system back to the model's initial state, before every run.
// Stop what the last run started first: Modex drops the events that come
// before the reset is done.
adapter.onReset(() => {
  // TODO(reset)
});

/**
 * Create().
 *
 * As the model states it (chat.star:12):
 *     def Create(s):
 *         require(not PHASES or mode(s) == "creating")
 *         c = new("Client")                        # a fresh object, printed Client1, Client2, ...
 *         s.clients.append(c)
 *         return c                                 # the action's output
 */
adapter.action("Create", () => {
  throw new NotImplemented(); // TODO(Create): do it on the system under test, return its output
});

/**
 * Enter(c).
 *
 * c: a model object (Client1, Client2): Modex sends the value your implementation gave for it (an output that returned it)
 *
 * As the model states it (chat.star:18):
 *     def Enter(s, c):
 *         require(not PHASES or mode(s) == "entering", "scenario: entering phase")
 *         require(c not in s.members, "already a member")
 *         for d in s.members:
 *             s.members[d][c] = []
 *         s.members[c] = {d: [] for d in s.members}
 * @param {any} c
 */
adapter.action("Enter", (c) => {
  throw new NotImplemented(); // TODO(Enter): do it on the system under test, return its output
});

/**
 * Post(sender, msg).
 *
 * sender: a model object (Client1, Client2): Modex sends the value your implementation gave for it (an output that returned it)
 * msg (str): "bye", "hi"
 *
 * As the model states it (chat.star:25):
 *     def Post(s, sender, msg):
 *         require(not PHASES or mode(s) == "posting")
 *         require(sender in s.members and len(s.members) > 1)
 *         for r in s.members:
 *             if r != sender:
 *                 s.members[r][sender].append(msg)
 * @param {any} sender
 * @param {string} msg
 */
adapter.action("Post", (sender, msg) => {
  throw new NotImplemented(); // TODO(Post): do it on the system under test, return its output
});

// The observable actions: the system does them on its own. Report each
// with adapter.emit, from any callback, as it happens:
//   adapter.emit("Deliver", sender, receiver, "bye"); // Deliver(sender, receiver, msg)

adapter.run();

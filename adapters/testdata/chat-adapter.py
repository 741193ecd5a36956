#!/usr/bin/env python3
"""The adapter of chat for the Modex model "chat" (chat.star), made by modex adapter new.

Fill in each action: make the system under test do it and return its output
(None when the model's action returns nothing). Until you do, an action raises
NotImplementedError: Modex skips it and tests the rest. Raise mx.Refused(reason)
when the system refuses an action the model allows; any other exception stops
the test as a crash of the implementation. print() goes to standard error.

In the project file:
    [adapter]
    command = ["python3", "adapter/adapter.py"]
Then: modex adapter check PROJECT, and modex test PROJECT.
"""

import modex_adapter as mx

adapter = mx.Adapter("chat (python)")


@adapter.on_reset
def reset():
    """Brings the system back to the model's initial state, before every run.

    Stop what the last run started first: Modex drops the events that come
    before reset returns."""
    pass  # TODO(reset)


@adapter.action("Create")
def create():
    r"""Create().

    As the model states it (chat.star:12):
        def Create(s):
            require(not PHASES or mode(s) == "creating")
            c = new("Client")                        # a fresh object, printed Client1, Client2, ...
            s.clients.append(c)
            return c                                 # the action's output
    """
    raise NotImplementedError  # TODO(Create): do it on the system under test, return its output


@adapter.action("Enter")
def enter(c):
    r"""Enter(c).

    c: a model object (Client1, Client2): Modex sends the value your implementation gave for it (an output that returned it)

    As the model states it (chat.star:18):
        def Enter(s, c):
            require(not PHASES or mode(s) == "entering", "scenario: entering phase")
            require(c not in s.members, "already a member")
            for d in s.members:
                s.members[d][c] = []
            s.members[c] = {d: [] for d in s.members}
    """
    raise NotImplementedError  # TODO(Enter): do it on the system under test, return its output


@adapter.action("Post")
def post(sender, msg: str):
    r"""Post(sender, msg).

    sender: a model object (Client1, Client2): Modex sends the value your implementation gave for it (an output that returned it)
    msg (str): "bye", "hi"

    As the model states it (chat.star:25):
        def Post(s, sender, msg):
            require(not PHASES or mode(s) == "posting")
            require(sender in s.members and len(s.members) > 1)
            for r in s.members:
                if r != sender:
                    s.members[r][sender].append(msg)
    """
    raise NotImplementedError  # TODO(Post): do it on the system under test, return its output


# The observable actions: the system does them on its own. Report each with
# adapter.emit, from any thread, as it happens:
#   adapter.emit("Deliver", Client1, Client1, "bye")    # Deliver(sender, receiver, msg)


if __name__ == "__main__":
    adapter.run()

#!/usr/bin/env python3
"""The adapter of stack for the Modex model "stack" (stack.star), made by modex adapter new.

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

adapter = mx.Adapter("stack (python)")


@adapter.on_reset
def reset():
    """Brings the system back to the model's initial state, before every run.

    Stop what the last run started first: Modex drops the events that come
    before reset returns."""
    pass  # TODO(reset)


@adapter.action("Push")
def push(x: int):
    r"""Push(x).

    x (int): 1, 2

    As the model states it (stack.star:8):
        def Push(s, x):
            require(len(s.stack) < CAPACITY, "the stack is full")
            s.stack.append(x)
    """
    raise NotImplementedError  # TODO(Push): do it on the system under test, return its output


@adapter.action("Pop")
def pop():
    r"""Pop().

    As the model states it (stack.star:12):
        def Pop(s):
            require(len(s.stack) > 0, "the stack is empty")
            return s.stack.pop()
    """
    raise NotImplementedError  # TODO(Pop): do it on the system under test, return its output


if __name__ == "__main__":
    adapter.run()

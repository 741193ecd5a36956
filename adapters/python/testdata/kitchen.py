"""An adapter exercising every part of modex_adapter, run by
test_modex_adapter.py as a child process."""

import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import modex_adapter as mx  # noqa: E402

adapter = mx.Adapter("kitchen (python)")
print("printed before run")  # must reach stderr, not the protocol

resets = 0
fail_next_reset = False
workers = []


def describe(v):
    """The Python type structure of a decoded value, e.g. frozenset{tuple[int,str]}."""
    if isinstance(v, (list, tuple)):
        return "%s[%s]" % (type(v).__name__, ",".join(describe(e) for e in v))
    if isinstance(v, frozenset):
        return "frozenset{%s}" % ",".join(sorted(describe(e) for e in v))
    if isinstance(v, dict):
        return "dict{%s}" % ",".join(sorted("%s:%s" % (describe(k), describe(e)) for k, e in v.items()))
    return type(v).__name__


@adapter.action("Echo")
def echo(*args):
    return args[0] if len(args) == 1 else args


@adapter.action("Describe")
def describe_action(x):
    return describe(x)


def make(kind):
    values = {
        "set": {10, 3, 1, 2},
        "strset": frozenset(["b", "c", "a"]),
        "mixedset": {"a", 1},
        "tupleset": {(2, "b"), (1, "a")},
        "tuple": (1, "a", None),
        "bytes": b"hi\x00",
        "badbytes": b"\xff",
        "bytearray": bytearray(b"ab"),
        "dict": {"a": {1}, (1, 2): [True, 1.5]},
        "nested": [{"k": (b"x",)}, frozenset()],
        "none": None,
        "float": 1.5,
        "object": object(),
        "nan": float("nan"),
    }
    return values[kind]


adapter.action("Make")(make)  # registered without decorator syntax


@adapter.action("Full")
def full():
    raise mx.Refused("the stack is full")


@adapter.action("TodoClass")
def todo_class():
    raise NotImplementedError


@adapter.action("TodoInstance")
def todo_instance():
    raise NotImplementedError("Pop waits for the next release")


@adapter.action("Boom")
def boom():
    raise ValueError("boom")


@adapter.action("Burst")
def burst(n, pad):
    """A thread emits n events while this handler sleeps, and goes on
    emitting after it returned."""

    def run():
        for i in range(n):
            adapter.emit("Tick", i, pad)
            if i % 10 == 0:
                time.sleep(0.001)

    t = threading.Thread(target=run)
    workers.append(t)
    t.start()
    adapter.emit("Started", n)
    time.sleep(0.01)
    return pad * 3


@adapter.action("Print")
def print_action():
    print("hello from print")
    sys.stdout.write("hello from sys.stdout\n")
    subprocess.run([sys.executable, "-c", "print('hello from a child process')"], check=True)
    return "printed"


@adapter.action("Sleep")
def sleep(seconds):
    time.sleep(seconds)
    return "slept"


@adapter.action("Resets")
def count_resets():
    return resets


@adapter.action("FailNextReset")
def fail_reset():
    global fail_next_reset
    fail_next_reset = True


@adapter.on_reset
def reset():
    global resets, fail_next_reset
    for t in workers:
        t.join()
    workers.clear()
    if fail_next_reset:
        fail_next_reset = False
        raise RuntimeError("cannot reset")
    resets += 1


@adapter.on_close
def close():
    sys.stderr.write("on_close called\n")


if os.environ.get("KITCHEN_LISTEN"):
    adapter.run(listen=os.environ["KITCHEN_LISTEN"])
else:
    adapter.run()

"""Tests of modex_adapter: each one runs testdata/kitchen.py as a child
process on real pipes (or TCP) and speaks the protocol to it."""

import json
import os
import queue
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KITCHEN = os.path.join(HERE, "testdata", "kitchen.py")
TIMEOUT = 5.0

sys.path.insert(0, HERE)
import modex_adapter as mx  # noqa: E402


def _pump(stream, lines):
    for line in iter(stream.readline, b""):
        lines.put(line)
    lines.put(None)


class Child:
    """A running kitchen adapter: send() writes a request, line() reads one
    line of its standard output, exit() waits for its end."""

    def __init__(self, args=(), env=None):
        full_env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        self.proc = subprocess.Popen(
            [sys.executable, KITCHEN] + list(args),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env)
        self.out = queue.Queue()
        self.err = queue.Queue()
        self.err_text = b""
        for stream, q in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=_pump, args=(stream, q), daemon=True).start()

    def send(self, msg):
        data = msg if isinstance(msg, bytes) else json.dumps(msg).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def raw_line(self, timeout=TIMEOUT):
        try:
            line = self.out.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no line from the adapter within %ss; stderr: %s" % (timeout, self.stderr()))
        if line is None:
            raise AssertionError("the adapter closed its output; stderr: %s" % self.stderr())
        return line

    def line(self, timeout=TIMEOUT):
        raw = self.raw_line(timeout)
        try:
            return json.loads(raw)
        except ValueError:
            raise AssertionError("not a JSON line: %r" % raw)

    def ask(self, msg):
        self.send(msg)
        return self.line()

    def stderr(self, wait=0.0):
        """Standard error so far (all of it once the process ended)."""
        deadline = time.time() + wait
        while True:
            try:
                chunk = self.err.get(timeout=max(0.0, deadline - time.time()))
            except queue.Empty:
                break
            if chunk is None:
                self.err.put(None)
                break
            self.err_text += chunk
        return self.err_text.decode("utf-8", "replace")

    def exit(self):
        try:
            return self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("the adapter did not exit; stderr: %s" % self.stderr())

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


class AdapterTest(unittest.TestCase):
    def start(self, args=(), env=None):
        child = Child(args, env)
        self.addCleanup(child.close)
        return child

    def hello(self, child, actions=None):
        msg = {"type": "hello", "id": 1, "protocol": mx.PROTOCOL, "model": "kitchen"}
        if actions is not None:
            msg["actions"] = actions
        return child.ask(msg)

    def invoke(self, child, action, *args, rid=3):
        return child.ask({"type": "invoke", "id": rid, "action": action, "args": list(args)})

    def test_hello_reports_unimplemented_actions(self):
        c = self.start()
        ans = self.hello(c, ["Echo", "Pop", "Full", "Peek"])
        self.assertEqual(ans, {"type": "hello", "id": 1, "protocol": "modex-adapter/1", "name": "kitchen (python)", "features": ["coverage"],
                               "unimplemented": ["Pop", "Peek"]})
        ans = c.ask({"type": "hello", "id": 2, "protocol": mx.PROTOCOL, "model": "kitchen", "actions": ["Echo"]})
        self.assertNotIn("unimplemented", ans)
        ans = c.ask({"type": "hello", "id": 3, "protocol": mx.PROTOCOL, "model": "kitchen"})
        self.assertEqual(ans, {"type": "hello", "id": 3, "protocol": "modex-adapter/1", "name": "kitchen (python)", "features": ["coverage"]})

    def test_decoding(self):
        cases = [
            (None, "NoneType"), (True, "bool"), (1, "int"), (1.5, "float"), ("s", "str"),
            ([1, "a"], "list[int,str]"),
            ({"set": [1, 2]}, "frozenset{int,int}"),
            ({"set": [[1, "a"], [2, "b"]]}, "frozenset{tuple[int,str],tuple[int,str]}"),
            ({"set": [{"k": 1}]}, "list[dict{str:int}]"),  # unhashable item: a list
            ({"dict": [["a", [1]], [[1, 2], {"bytes": "x"}]]}, "dict{str:list[int],tuple[int,int]:bytes}"),
            ({"dict": [[{"set": ["a"]}, None]]}, "dict{frozenset{str}:NoneType}"),
            ({"bytes": "hi"}, "bytes"),
            ({"host": "h", "port": 1}, "dict{str:int,str:str}"),
            ([[{"set": []}], {"dict": []}], "list[list[frozenset{}],dict{}]"),
        ]
        c = self.start()
        self.hello(c)
        for i, (arg, want) in enumerate(cases):
            ans = self.invoke(c, "Describe", arg, rid=10 + i)
            self.assertEqual(ans, {"type": "result", "id": 10 + i, "output": want}, arg)
        # bytes are the UTF-8 of the string
        ans = self.invoke(c, "Echo", {"bytes": "é\u0000"})
        self.assertEqual(ans["output"], {"bytes": "é\u0000"})

    def test_encoding(self):
        cases = [
            ("set", {"set": [1, 2, 3, 10]}),  # numbers, not by their text
            ("strset", {"set": ["a", "b", "c"]}),
            ("mixedset", {"set": ["a", 1]}),  # mixed types: by JSON text
            ("tupleset", {"set": [[1, "a"], [2, "b"]]}),
            ("tuple", [1, "a", None]),
            ("bytes", {"bytes": "hi\u0000"}),
            ("badbytes", {"bytes": "\ufffd"}),
            ("bytearray", {"bytes": "ab"}),
            ("dict", {"dict": [["a", {"set": [1]}], [[1, 2], [True, 1.5]]]}),
            ("nested", [{"dict": [["k", [{"bytes": "x"}]]]}, {"set": []}]),
            ("none", None),
            ("float", 1.5),
        ]
        c = self.start()
        self.hello(c)
        for kind, want in cases:
            ans = self.invoke(c, "Make", kind)
            self.assertEqual(ans, {"type": "result", "id": 3, "output": want}, kind)
        value = {"dict": [[{"set": ["x", "y"]}, [1, {"bytes": "b"}]]]}
        self.assertEqual(self.invoke(c, "Echo", value)["output"], value)
        self.assertEqual(self.invoke(c, "Echo", 1, "two")["output"], [1, "two"])  # a tuple

    def test_refused(self):
        c = self.start()
        self.hello(c)
        self.assertEqual(self.invoke(c, "Full"), {"type": "refused", "id": 3, "reason": "the stack is full"})

    def test_unimplemented(self):
        c = self.start()
        self.hello(c)
        ans = self.invoke(c, "TodoClass", rid=4)
        self.assertEqual((ans["type"], ans["id"]), ("unimplemented", 4))
        self.assertTrue(ans["reason"])
        ans = self.invoke(c, "TodoInstance", rid=5)
        self.assertEqual(ans, {"type": "unimplemented", "id": 5, "reason": "Pop waits for the next release"})
        ans = self.invoke(c, "Pop", rid=6)
        self.assertEqual((ans["type"], ans["id"]), ("unimplemented", 6))
        self.assertIn("Pop", ans["reason"])

    def test_errors_and_answering_afterwards(self):
        c = self.start()
        self.hello(c)
        self.assertEqual(self.invoke(c, "Boom", rid=4), {"type": "error", "id": 4, "message": "ValueError: boom"})
        self.assertEqual(self.invoke(c, "Echo", 7, rid=5), {"type": "result", "id": 5, "output": 7})
        ans = self.invoke(c, "Make", "object", rid=6)
        self.assertEqual((ans["type"], ans["id"]), ("error", 6))
        self.assertTrue(ans["message"].startswith("TypeError: "), ans)
        ans = self.invoke(c, "Make", "nan", rid=7)
        self.assertEqual((ans["type"], ans["id"]), ("error", 7))
        ans = self.invoke(c, "Describe", rid=8)  # wrong number of arguments
        self.assertEqual((ans["type"], ans["id"]), ("error", 8))
        c.send(b"this is not JSON\n")
        self.assertEqual(c.ask({"type": "frob", "id": 9}),
                         {"type": "error", "id": 9, "message": "unknown request type frob"})
        self.assertEqual(self.invoke(c, "Echo", "still here", rid=10)["output"], "still here")
        self.assertIn("not JSON", c.stderr())
        self.assertIn("ValueError: boom", c.stderr())  # the traceback

    def test_reset(self):
        c = self.start()
        self.hello(c)
        self.assertEqual(c.ask({"type": "reset", "id": 2}), {"type": "ok", "id": 2})
        self.assertEqual(c.ask({"type": "reset", "id": 3}), {"type": "ok", "id": 3})
        self.assertEqual(self.invoke(c, "Resets", rid=4)["output"], 2)
        self.invoke(c, "FailNextReset", rid=5)
        self.assertEqual(c.ask({"type": "reset", "id": 6}),
                         {"type": "error", "id": 6, "message": "reset: RuntimeError: cannot reset"})
        self.assertEqual(c.ask({"type": "reset", "id": 7}), {"type": "ok", "id": 7})
        self.assertEqual(self.invoke(c, "Resets", rid=8)["output"], 3)

    def test_events_from_another_thread_during_a_command(self):
        c = self.start()
        self.hello(c)
        pad = "x" * 3000  # lines longer than a pipe's atomic write
        c.send({"type": "invoke", "id": 3, "action": "Burst", "args": [100, pad]})
        ticks, answers, started = [], [], 0
        while len(ticks) < 100 or not answers:
            msg = c.line()  # fails on a line that is not JSON (interleaved)
            if msg.get("type") == "event" and msg["action"] == "Tick":
                self.assertEqual(msg["args"], [len(ticks), pad])  # in emit order
                ticks.append(msg)
            elif msg.get("type") == "event" and msg["action"] == "Started":
                started += 1
            else:
                answers.append(msg)
        self.assertEqual(answers, [{"type": "result", "id": 3, "output": pad * 3}])
        self.assertEqual(started, 1)
        self.assertEqual(c.ask({"type": "reset", "id": 4}), {"type": "ok", "id": 4})  # joins the thread

    def test_print_goes_to_stderr(self):
        c = self.start()
        self.hello(c)
        self.assertEqual(self.invoke(c, "Print"), {"type": "result", "id": 3, "output": "printed"})
        c.send({"type": "shutdown"})
        self.assertEqual(c.exit(), 0)
        self.assertTrue(c.out.get(timeout=TIMEOUT) is None, "more on stdout")
        err = c.stderr(wait=TIMEOUT)
        for text in ("printed before run", "hello from print", "hello from sys.stdout", "hello from a child process"):
            self.assertIn(text, err)

    def test_end_of_input_exits_0_after_on_close(self):
        c = self.start()
        self.hello(c)
        c.proc.stdin.close()
        self.assertEqual(c.exit(), 0)
        self.assertIn("on_close called", c.stderr(wait=TIMEOUT))

    def test_shutdown_exits_0_after_on_close(self):
        c = self.start()
        self.hello(c)
        c.send({"type": "shutdown"})
        self.assertEqual(c.exit(), 0)
        self.assertEqual(c.stderr(wait=TIMEOUT).count("on_close called"), 1)

    def test_signals_exit_0_after_on_close(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig.name):
                c = self.start()
                self.hello(c)
                c.proc.send_signal(sig)
                self.assertEqual(c.exit(), 0)
                self.assertEqual(c.stderr(wait=TIMEOUT).count("on_close called"), 1)
        # during a pending command
        c = self.start()
        self.hello(c)
        c.send({"type": "invoke", "id": 3, "action": "Sleep", "args": [30]})
        time.sleep(0.2)
        c.proc.send_signal(signal.SIGTERM)
        self.assertEqual(c.exit(), 0)
        self.assertIn("on_close called", c.stderr(wait=TIMEOUT))

    def tcp(self, child):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", child.stderr(wait=0.05))
            if m:
                break
        else:
            self.fail("no 'listening on' line; stderr: %s" % child.stderr())
        port = int(m.group(1))
        self.assertNotEqual(port, 0)
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.addCleanup(sock.close)
        return sock, sock.makefile("rwb")

    def check_tcp(self, child):
        sock, f = self.tcp(child)

        def ask(msg):
            f.write(json.dumps(msg).encode() + b"\n")
            f.flush()
            return json.loads(f.readline())

        self.assertEqual(ask({"type": "hello", "id": 1, "protocol": mx.PROTOCOL, "actions": ["Pop"]})["unimplemented"],
                         ["Pop"])
        self.assertEqual(ask({"type": "invoke", "id": 2, "action": "Echo", "args": [{"set": [2, 1]}]}),
                         {"type": "result", "id": 2, "output": {"set": [1, 2]}})
        f.close()
        sock.close()
        self.assertEqual(child.exit(), 0)
        self.assertIn("on_close called", child.stderr(wait=TIMEOUT))

    def test_tcp_listen_flag(self):
        c = self.start(args=["--listen", "127.0.0.1:0"])
        self.check_tcp(c)
        self.assertTrue(c.out.get(timeout=TIMEOUT) is None, "protocol lines on stdout in TCP mode")

    def test_tcp_connection_reset(self):
        c = self.start(args=["--listen=127.0.0.1:0"])
        sock, f = self.tcp(c)
        f.write(b'{"type":"hello","id":1}\n')
        f.flush()
        self.assertEqual(json.loads(f.readline())["type"], "hello")
        f.close()  # then reset while the adapter waits for a request
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # a reset, not an orderly end
        self.assertEqual(c.exit(), 0)
        self.assertIn("on_close called", c.stderr(wait=TIMEOUT))

    def test_tcp_run_argument(self):
        self.check_tcp(self.start(env={"KITCHEN_LISTEN": "127.0.0.1:0"}))


class RegistrationTest(unittest.TestCase):
    """The registration API, in process (an Adapter takes over stdout: it is
    given back after each test)."""

    def setUp(self):
        saved = sys.stdout

        def restore():
            real = mx._real_stdout
            if real is not None:
                real.flush()
                os.dup2(real.fileno(), 1)
                real.close()
                mx._real_stdout = None
            sys.stdout = saved

        self.addCleanup(restore)

    def test_decorators_return_the_function(self):
        a = mx.Adapter("t")
        self.assertIs(sys.stdout, sys.stderr)  # print() goes to stderr

        def push(x):
            return x

        self.assertIs(a.action("Push")(push), push)
        self.assertIs(a.on_reset(push), push)
        self.assertIs(a.on_close(push), push)
        with self.assertRaises(ValueError):
            a.action("Push")(push)
        with self.assertRaises(TypeError):
            a.action("Pop")(3)

    def test_listen_argument(self):
        self.assertEqual(mx._listen_arg(["-v", "--listen", "h:1"]), "h:1")
        self.assertEqual(mx._listen_arg(["--listen=h:2"]), "h:2")
        self.assertIsNone(mx._listen_arg(["--listen"]))


if __name__ == "__main__":
    unittest.main()

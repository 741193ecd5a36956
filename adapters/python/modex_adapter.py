"""Modex adapter kit for Python: the implementation-adapter protocol
(modex-adapter/1, see docs/adapter-protocol.md) written once, so that an
adapter is only per-action code.

    import modex_adapter as mx

    adapter = mx.Adapter("stack (python)")
    stack = []

    @adapter.action("Push")
    def push(x):
        if len(stack) == 3:
            raise mx.Refused("the stack is full")
        stack.append(x)

    @adapter.on_reset
    def reset():
        stack.clear()

    adapter.run()

Standard library only, Python 3.9+. Copy this file next to your adapter.
"""

import json
import os
import signal
import socket
import sys
import threading
import traceback

__all__ = ["Adapter", "Refused", "PROTOCOL", "encode", "decode"]

PROTOCOL = "modex-adapter/1"


class Refused(Exception):
    """Raised by an action handler when the implementation does not accept
    the action now: Modex gets {"type":"refused","reason":...}."""

    def __init__(self, reason="refused"):
        super().__init__(reason)
        self.reason = str(reason)


class _Stop(BaseException):
    """Unwinds run() on SIGTERM/SIGINT (a BaseException, so that user code's
    `except Exception` does not swallow it)."""


# ---------------------------------------------------------------- values


def _hashable(x):
    """x with its lists turned into tuples (recursively), for dict keys and
    set items."""
    if isinstance(x, list):
        return tuple(_hashable(e) for e in x)
    return x


def decode(x):
    """Converts a decoded JSON value of the protocol to a native value:
    {"set":[...]} to a frozenset (a list when an item is unhashable),
    {"dict":[[k,v],...]} to a dict, {"bytes":"..."} to bytes, arrays to
    lists. Other JSON objects become dicts of decoded values."""
    if isinstance(x, list):
        return [decode(e) for e in x]
    if not isinstance(x, dict):
        return x
    if len(x) == 1:
        if isinstance(x.get("bytes"), str):
            return x["bytes"].encode("utf-8", "surrogatepass")
        if isinstance(x.get("set"), list):
            items = [decode(e) for e in x["set"]]
            try:
                return frozenset(_hashable(e) for e in items)
            except TypeError:
                return items
        if isinstance(x.get("dict"), list):
            out = {}
            for kv in x["dict"]:
                if not isinstance(kv, list) or len(kv) != 2:
                    raise ValueError("a dict entry must be [key, value], not %s" % json.dumps(kv))
                key = _hashable(decode(kv[0]))
                try:
                    out[key] = decode(kv[1])
                except TypeError:
                    raise ValueError("unhashable dict key %s" % json.dumps(kv[0])) from None
            return out
    return {k: decode(v) for k, v in x.items()}


def _sorted_items(items):
    """The items of a set in a deterministic order: sorted when they are of
    one comparable type, else by their JSON text."""
    items = list(items)
    kinds = {float if type(e) is int else type(e) for e in items}
    if len(kinds) <= 1:
        try:
            return sorted(items)
        except TypeError:
            pass
    return [items[i] for _, i in sorted((_dumps(encode(e)), i) for i, e in enumerate(items))]


def encode(v):
    """Converts a native value to its JSON value in the protocol: tuples and
    lists to arrays, set/frozenset to {"set":[...]} (sorted), dict to
    {"dict":[[k,v],...]}, bytes/bytearray to {"bytes":"..."} (invalid UTF-8
    replaced by U+FFFD). Raises TypeError for anything else."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [encode(e) for e in v]
    if isinstance(v, (set, frozenset)):
        return {"set": [encode(e) for e in _sorted_items(v)]}
    if isinstance(v, dict):
        return {"dict": [[encode(k), encode(e)] for k, e in v.items()]}
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"bytes": bytes(v).decode("utf-8", "replace")}
    raise TypeError("cannot send a %s to Modex" % type(v).__name__)


def _dumps(x):
    # ASCII only, so that any str (even with lone surrogates) makes a valid
    # line; NaN and infinities are not JSON: ValueError.
    return json.dumps(x, separators=(",", ":"), allow_nan=False)


def _describe(e):
    """ "<ExceptionType>: <text>" for an error answer."""
    text = str(e)
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _log(msg):
    try:
        sys.stderr.write("modex_adapter: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


# ---------------------------------------------------------------- stdout

_real_stdout = None  # the binary stream protocol lines go to (stdio mode)
_stdout_lock = threading.Lock()


def _take_stdout():
    """Keeps the real standard output for the protocol and points both
    sys.stdout and file descriptor 1 (which child processes inherit) at
    standard error, so that a stray print cannot break the protocol."""
    global _real_stdout
    with _stdout_lock:
        if _real_stdout is not None:
            return _real_stdout
        try:
            sys.stdout.flush()
        except Exception:
            pass
        try:
            fd = os.dup(1)
            try:
                os.dup2(2, 1)
            except OSError:
                pass
            _real_stdout = os.fdopen(fd, "wb")
        except OSError:
            _real_stdout = getattr(sys.stdout, "buffer", None) or sys.__stdout__.buffer
        sys.stdout = sys.stderr
        return _real_stdout


class _StreamOut:
    def __init__(self, f):
        self.f = f

    def write(self, data):
        self.f.write(data)
        self.f.flush()


class _SocketOut:
    def __init__(self, sock):
        self.sock = sock

    def write(self, data):
        self.sock.sendall(data)


# ---------------------------------------------------------------- adapter


def _coverage(rid):
    """Saves coverage.py's data when the adapter runs under it (python3 -m
    coverage run ...; Modex sets COVERAGE_FILE), and says where."""
    try:
        import coverage  # noqa: the adapter's own choice to run under it
        cov = coverage.Coverage.current()
    except ImportError:
        cov = None
    if cov is None:
        return {"type": "coverage", "id": rid, "format": "none",
                "reason": "not running under coverage.py (python3 -m coverage run ADAPTER)"}
    cov.save()
    return {"type": "coverage", "id": rid, "format": "coverage.py", "path": cov.get_data().data_filename()}


class Adapter:
    """One adapter: register handlers with action(), on_reset and on_close,
    then call run()."""

    def __init__(self, name):
        self.name = str(name)
        self._handlers = {}
        self._reset = None
        self._close = None
        self._lock = threading.RLock()  # around every whole line, encoded and written
        self._out = None
        self._stopping = False
        self._closed = False
        _take_stdout()

    def action(self, name):
        """Returns a decorator registering its function as the handler of
        the action `name`: it is called with the decoded args positionally
        and returns the output (None for none)."""

        def register(fn):
            if not callable(fn):
                raise TypeError("the handler of %s is not callable" % name)
            if name in self._handlers:
                raise ValueError("action %s has a handler already" % name)
            self._handlers[name] = fn
            return fn

        return register

    def on_reset(self, fn):
        """Registers fn() (a decorator too), called on every reset: it must
        bring the implementation back to its initial state and stop whatever
        the previous run started before it returns."""
        self._reset = fn
        return fn

    def on_close(self, fn):
        """Registers fn() (a decorator too), called once when the adapter
        stops: shutdown, end of input, SIGTERM or SIGINT."""
        self._close = fn
        return fn

    def emit(self, action, *args):
        """Sends the event action(*args) to Modex at once. Safe from any
        thread; lines are written whole, in the order emit is called. An
        event emitted while no connection is open is dropped."""
        with self._lock:  # encoded under the lock too: lines go out in emit order
            self._write({"type": "event", "action": str(action), "args": [encode(a) for a in args]})

    def _write(self, msg):
        with self._lock:
            data = (_dumps(msg) + "\n").encode("ascii")
            if self._out is None:
                return
            try:
                self._out.write(data)
            except (OSError, ValueError) as e:
                self._out = None
                _log("cannot write to Modex (%s); dropping what follows" % e)

    # -------------------------------------------------- requests

    def _answer(self, req):
        """The answer to one request (None for none)."""
        kind, rid = req.get("type"), req.get("id")
        if kind == "hello":
            if req.get("protocol") not in (None, PROTOCOL):
                _log("Modex speaks %r, this library %s" % (req.get("protocol"), PROTOCOL))
            ans = {"type": "hello", "id": rid, "protocol": PROTOCOL, "name": self.name, "features": ["coverage"]}
            actions = req.get("actions")
            missing = [a for a in actions if a not in self._handlers] if isinstance(actions, list) else []
            if missing:
                ans["unimplemented"] = missing
            return ans
        if kind == "reset":
            try:
                if self._reset is not None:
                    self._reset()
            except Exception as e:
                traceback.print_exc()
                return {"type": "error", "id": rid, "message": "reset: " + _describe(e)}
            return {"type": "ok", "id": rid}
        if kind == "invoke":
            return self._invoke(req)
        if kind == "coverage":
            return _coverage(rid)
        if rid is None:
            _log("ignoring a request without id: %s" % _dumps(req)[:200])
            return None
        return {"type": "error", "id": rid, "message": "unknown request type %s" % kind}

    def _invoke(self, req):
        rid, name = req.get("id"), req.get("action")
        handler = self._handlers.get(name)
        if handler is None:
            return {"type": "unimplemented", "id": rid, "reason": "no handler for action %s" % name}
        try:
            args = req.get("args")
            if args is None:
                args = []
            if not isinstance(args, list):
                raise ValueError("args must be an array, not %s" % _dumps(args))
            out = handler(*[decode(a) for a in args])
            if out is NotImplemented:
                raise NotImplementedError
            return {"type": "result", "id": rid, "output": encode(out)}
        except Refused as e:
            return {"type": "refused", "id": rid, "reason": e.reason}
        except NotImplementedError as e:
            return {"type": "unimplemented", "id": rid, "reason": str(e) or "%s is not implemented" % name}
        except Exception as e:
            traceback.print_exc()
            return {"type": "error", "id": rid, "message": _describe(e)}

    def _serve(self, lines):
        """Answers the requests read from lines until shutdown or the end."""
        for line in lines:
            line = line.strip()
            if not line:
                continue
            try:
                req = json.loads(line)
            except ValueError:
                _log("ignoring a line that is not JSON: %r" % line[:200])
                continue
            if not isinstance(req, dict):
                _log("ignoring a line that is not a JSON object: %r" % line[:200])
                continue
            if req.get("type") == "shutdown":
                return
            try:
                ans = self._answer(req)
            except Exception as e:  # a malformed request
                traceback.print_exc()
                ans = {"type": "error", "id": req.get("id"), "message": _describe(e)}
            if ans is not None:
                try:
                    self._write(ans)
                except (TypeError, ValueError) as e:  # e.g. NaN in the output
                    self._write({"type": "error", "id": req.get("id"), "message": _describe(e)})

    # -------------------------------------------------- running

    def run(self, listen=None):
        """Speaks the protocol on standard input/output, or, with listen
        "HOST:PORT" (or --listen HOST:PORT among the program's arguments), on
        the one TCP connection it accepts there. Stops on shutdown, end of
        input, SIGTERM or SIGINT, calls the on_close hook and exits the
        process (status 0; 1 when the close hook raised)."""
        if listen is None:
            listen = _listen_arg(sys.argv[1:])
        self._install_signals()
        status = 0
        try:
            if listen is None:
                with self._lock:
                    self._out = _StreamOut(_take_stdout())
                self._serve(iter(sys.stdin.buffer.readline, b""))
            else:
                self._serve_tcp(str(listen))
        except _Stop:
            pass
        except OSError as e:  # e.g. the connection was reset: as its end
            _log("connection lost: %s" % e)
        finally:
            self._stopping = True
            status = self._shutdown()
        _exit(status)

    def _serve_tcp(self, listen):
        host, _, port = listen.rpartition(":")
        host = host.strip("[]")  # "" (as in ":7000"): every interface
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        srv = socket.socket(family, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((host, int(port)))
        srv.listen(1)
        addr = srv.getsockname()
        shown = "[%s]" % addr[0] if family == socket.AF_INET6 else addr[0]
        sys.stderr.write("listening on %s:%d\n" % (shown, addr[1]))
        sys.stderr.flush()
        try:
            conn, _ = srv.accept()
        finally:
            srv.close()
        with conn, conn.makefile("rb") as f:
            with self._lock:
                self._out = _SocketOut(conn)
            self._serve(iter(f.readline, b""))

    def _install_signals(self):
        def stop(signum, frame):
            if not self._stopping:
                self._stopping = True
                raise _Stop()

        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                signal.signal(sig, stop)
            except (ValueError, OSError):  # not the main thread
                pass

    def _shutdown(self):
        """Calls the close hook once and closes the output."""
        status = 0
        if not self._closed:
            self._closed = True
            if self._close is not None:
                try:
                    self._close()
                except Exception:
                    traceback.print_exc()
                    status = 1
        with self._lock:
            self._out = None
        return status


def _listen_arg(argv):
    """The address of --listen ADDR or --listen=ADDR in argv, or None."""
    for i, a in enumerate(argv):
        if a == "--listen" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--listen="):
            return a[len("--listen="):]
    return None


def _exit(status):
    """Exits the process; at once when threads that are not daemons would
    keep it alive (the close hook should have stopped them)."""
    for f in (sys.stderr, _real_stdout):
        try:
            if f is not None:
                f.flush()
        except Exception:
            pass
    others = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    if others:
        _log("%d thread(s) still running (%s): exiting anyway" % (len(others), ", ".join(t.name for t in others)))
        os._exit(status)
    sys.exit(status)

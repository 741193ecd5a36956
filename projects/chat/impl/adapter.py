#!/usr/bin/env python3
"""The chat sample's adapter in Python, on the adapter kit (modex_adapter.py,
a copy of adapters/python/modex_adapter.py): the same chat server as the Go
adapter drives (impl server, built once from the Go files next to this one,
started afresh at every reset), over TCP.

    python3 impl/adapter.py [--fixed]

Create() opens a client connection and returns its id ("c1", ...); Enter(c)
sends ENTER; Post(c, msg) sends POST msg; every MSG a client receives is the
observable Deliver(sender, receiver, msg), emitted from the client's reader
thread.
"""

import glob
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading

import modex_adapter as mx

HERE = os.path.dirname(os.path.abspath(__file__))
FIXED = "--fixed" in sys.argv[1:]
adapter = mx.Adapter("chat server (python, fixed=%s)" % str(FIXED).lower())
build_dir = tempfile.mkdtemp(prefix="modex-chat-")
server_bin = os.path.join(build_dir, "chatimpl")
subprocess.run(["go", "build", "-o", server_bin] + sorted(f for f in glob.glob(os.path.join(HERE, "*.go")) if not f.endswith("_test.go")),
               check=True, cwd=HERE, stdout=sys.stderr)

server = None   # the chat server process of this run
address = None  # its (host, port)
clients = {}    # id -> Client


class Client:
    """A connection to the server: replies go to the pending command,
    messages become Deliver events."""

    def __init__(self, sock, cid, reader):
        self.sock, self.id, self.reader = sock, cid, reader
        self.replies = queue.Queue()
        threading.Thread(target=self.listen, daemon=True).start()

    def listen(self):
        for line in self.reader:
            line = line.rstrip("\r\n")
            if line.startswith("MSG "):
                parts = line.split(" ", 2)
                if len(parts) == 3:
                    adapter.emit("Deliver", "c" + parts[1], self.id, parts[2])
            else:
                self.replies.put(line)

    def command(self, line):
        self.sock.sendall((line + "\n").encode())
        try:
            reply = self.replies.get(timeout=2)
        except queue.Empty:
            raise TimeoutError("the server did not answer " + line)
        if reply != "OK":
            raise mx.Refused(reply.removeprefix("ERR "))


def stop():
    global server
    for c in clients.values():
        c.sock.close()
    clients.clear()
    if server is not None:
        server.terminate()
        server.wait()
        server = None


@adapter.on_reset
def reset():
    global server, address
    stop()
    args = [server_bin, "server", "--listen", "127.0.0.1:0"] + (["--fixed"] if FIXED else [])
    server = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()  # listening on 127.0.0.1:PORT
    host, port = line.split()[-1].rsplit(":", 1)
    address = (host, int(port))


@adapter.on_close
def close():
    stop()
    for f in glob.glob(os.path.join(build_dir, "*")):
        os.remove(f)
    os.rmdir(build_dir)


@adapter.action("Create")
def create():
    sock = socket.create_connection(address, timeout=2)
    sock.settimeout(None)
    reader = sock.makefile("r", encoding="utf-8", newline="\n")
    greeting = reader.readline()
    if not greeting.startswith("ID "):
        raise RuntimeError("server greeting %r" % greeting)
    c = Client(sock, "c" + greeting[3:].strip(), reader)
    clients[c.id] = c
    return c.id


def client(cid):
    if cid not in clients:
        raise mx.Refused("no such client " + str(cid))
    return clients[cid]


@adapter.action("Enter")
def enter(c):
    client(c).command("ENTER")


@adapter.action("Post")
def post(c, msg):
    client(c).command("POST " + str(msg))


if __name__ == "__main__":
    adapter.run()

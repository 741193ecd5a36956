#!/usr/bin/env python3
"""Writes a long linearizable register history in Jepsen's EDN form: N
operations (read, write) by P processes, each taking effect at a random
moment between its invocation and its completion. For the comparison with
porcupine (scripts/histories-vs-porcupine.sh). Usage:
long-history.py [N] [P] [SEED] > long.edn"""
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
procs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
v = None
pending = {}  # process -> [f, arg, took effect, result]
ops = 0
out = sys.stdout
while ops < n or pending:
    p = r.randrange(procs)
    if p in pending:
        op = pending[p]
        if not op[2]:  # it takes effect now
            if op[0] == "read":
                op[3] = v
            else:
                v = op[1]
            op[2] = True
            continue
        val = op[1] if op[0] == "write" else ("nil" if op[3] is None else op[3])
        out.write("{:process %d, :type :ok, :f :%s, :value %s}\n" % (p, op[0], val))
        del pending[p]
    elif ops < n:
        if r.random() < 0.5:
            out.write("{:process %d, :type :invoke, :f :read, :value nil}\n" % p)
            pending[p] = ["read", None, False, None]
        else:
            a = r.randrange(5)
            out.write("{:process %d, :type :invoke, :f :write, :value %d}\n" % (p, a))
            pending[p] = ["write", a, False, None]
        ops += 1

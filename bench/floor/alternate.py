"""One edit through a vfsctl call process, its reply read, then a durable replace of
the same file by this process (temp file, fsync, rename, folder fsync), alternated.

    python3 alternate.py path/to/vfsctl journal 200
    python3 alternate.py before/vfsctl,after/vfsctl file 200

Makes a workspace of one 300-line Go file in a temporary folder; prints the medians of
both and their ratio. Given several builds, comma-separated, each has a process and a
workspace of its own, and each edit goes to every one in turn (in the reverse order
every other edit) before the floor's.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

builds, durability, n = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3])
top = tempfile.mkdtemp()
fl = os.path.join(top, "floor")
os.makedirs(fl)
data = "\n".join(["package p", ""] + [f"func f{i}() int {{ return {i} }}" for i in range(298)]) + "\n"
a, e = "func f100() int { return 100 }", "func f100() int { return 101 }"

procs = []
for k, vfsctl in enumerate(builds):
    ws = os.path.join(top, f"ws{k}")
    os.makedirs(ws)
    with open(os.path.join(ws, "g.go"), "w") as f:
        f.write(data)
    procs.append(subprocess.Popen([vfsctl, "call", "--root", ws, "--guard", "off", "--durability", durability],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE))


def floor(i):
    t = time.perf_counter()
    body = (data.replace(a, e) if i % 2 == 0 else data).encode()
    tmp = os.path.join(fl, ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, body)
    os.fsync(fd)
    os.close(fd)
    os.rename(tmp, os.path.join(fl, "g.go"))
    d = os.open(fl, os.O_RDONLY)
    os.fsync(d)
    os.close(d)
    return time.perf_counter() - t


calls, floors = [[] for _ in procs], []
for i in range(n):
    old, new = (a, e) if i % 2 == 0 else (e, a)
    line = json.dumps({"id": i, "tool": "edit_file", "args": {"path": "g.go", "edits": [{"oldText": old, "newText": new}]}}) + "\n"
    order = list(range(len(procs)))
    if i % 2:
        order.reverse()
    for k in order:
        p = procs[k]
        t = time.perf_counter()
        p.stdin.write(line.encode())
        p.stdin.flush()
        reply = p.stdout.readline()
        calls[k].append(time.perf_counter() - t)
        if b'"ok":true' not in reply:
            sys.exit("refused: " + reply.decode())
    floors.append(floor(i))
for p in procs:
    p.stdin.close()
    p.wait()


def median(x):
    x = sorted(x[2:])
    return x[len(x) // 2]


for vfsctl, c in zip(builds, calls):
    print(f"{durability}: {vfsctl}: call {median(c) * 1e6:.0f} us, floor {median(floors) * 1e6:.0f} us, ratio {median(c) / median(floors):.2f}")

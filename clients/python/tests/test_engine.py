"""Tests of the Python client against the real vfsctl binary.

The binary is $VFSCTL; without it, the tests build one from this checkout with
`go build` (so `python3 -m unittest` works in a clone with Go installed).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.dirname(HERE)
sys.path.insert(0, CLIENT)

import vfsctl  # noqa: E402

_built = None


def binary() -> str:
    """The vfsctl under test: $VFSCTL, else one built from this checkout."""
    global _built
    if os.environ.get("VFSCTL"):
        return os.environ["VFSCTL"]
    if _built is None:
        out = tempfile.mkdtemp(prefix="vfsctl-bin-")
        _built = os.path.join(out, "vfsctl")
        repo = os.path.dirname(os.path.dirname(CLIENT))
        subprocess.run(["go", "build", "-o", _built, "./cmd/vfsctl"], cwd=repo, check=True)
    return _built


def write_script(folder: str, name: str, body: str) -> str:
    """A stand-in binary (a Python script) for the failure tests."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!" + sys.executable + "\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


APP = 'def greet(name):\n    print("Hello, " + name)\n\ngreet("world")\n'


class Workspace(unittest.TestCase):
    def setUp(self) -> None:
        self.root = tempfile.mkdtemp(prefix="vfsctl-py-")
        self.addCleanup(shutil.rmtree, self.root, True)
        with open(os.path.join(self.root, "app.py"), "w") as f:
            f.write(APP)

    def read(self, name: str) -> str:
        with open(os.path.join(self.root, name), encoding="utf-8") as f:
            return f.read()

    def engine(self, **kw) -> vfsctl.Engine:
        kw.setdefault("binary", binary())
        eng = vfsctl.Engine(self.root, **kw)
        self.addCleanup(eng.close)
        return eng


class TestCalls(Workspace):
    def test_sloppy_edit_lands_as_meant(self) -> None:
        eng = self.engine(session="s1")
        r = eng.call(
            "edit_file",
            {"path": "app.py", "edits": [{"oldText": "print(“Hello, ” + name)", "newText": "print(“Hi, ” + name)"}]},
            turn="t1",
        )
        self.assertTrue(r.ok, r.text)
        self.assertIsNone(r.kind)
        self.assertIsInstance(r.txn, int)
        # The file's straight quotes were kept: the model's curly ones never reach it.
        self.assertEqual(self.read("app.py"), APP.replace("Hello", "Hi"))
        self.assertIn('+    print("Hi, " + name)', r.text)

    def test_refusal_is_a_reply_not_an_exception(self) -> None:
        eng = self.engine()
        r = eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": "nowhere to be found", "newText": "x"}]})
        self.assertFalse(r.ok)
        self.assertTrue(r.is_error)
        self.assertEqual(r.kind, "text_not_found")
        self.assertEqual(self.read("app.py"), APP)
        r = eng.call("no_such_tool", {})
        self.assertEqual(r.kind, "unknown_tool")
        # The process goes on after refusals.
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)

    def test_args_that_are_not_json_are_a_refusal(self) -> None:
        # NaN and a lone surrogate (os.listdir's name for bytes that are not UTF-8)
        # cannot be sent: each is an invalid_input Reply, and the process goes on.
        eng = self.engine()
        for args in ({"path": "app.py", "offset": float("nan")}, {"path": "\udcff"}):
            r = eng.call("read_file", args)
            self.assertFalse(r.ok)
            self.assertEqual(r.kind, "invalid_input", r.text)
            self.assertIn("nothing was sent", r.text)
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)

    def test_create_never_overwrites(self) -> None:
        eng = self.engine()
        r = eng.call("create_file", {"path": "app.py", "content": "oops\n"})
        self.assertEqual(r.kind, "file_exists")
        self.assertEqual(self.read("app.py"), APP)
        r = eng.call("create_file", {"path": "pkg/new.py", "content": "x = 1\n"})
        self.assertTrue(r.ok, r.text)
        self.assertEqual(self.read("pkg/new.py"), "x = 1\n")

    def test_rewind_and_undo(self) -> None:
        eng = self.engine(session="agent-7")
        eng.call("create_file", {"path": "notes.txt", "content": "one\n"}, turn="t1")
        r2 = eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": '"world"', "newText": '"there"'}]}, turn="t2")
        self.assertTrue(r2.ok, r2.text)
        eng.call("create_file", {"path": "later.txt", "content": "two\n"}, turn="t3")

        dry = eng.rewind("t2", dry_run=True)
        self.assertTrue(dry["ok"], dry)
        self.assertIn('greet("there")', self.read("app.py"))  # a dry run writes nothing

        done = eng.rewind("t2")
        self.assertTrue(done["ok"], done)
        self.assertEqual(self.read("app.py"), APP)
        self.assertFalse(os.path.exists(os.path.join(self.root, "later.txt")))
        self.assertEqual(self.read("notes.txt"), "one\n")  # turn t1 stays

        back = eng.undo(done["txn"])  # the rewind is a call like any: undone, t2 and t3 return
        self.assertTrue(back["ok"], back)
        self.assertIn('greet("there")', self.read("app.py"))
        self.assertEqual(self.read("later.txt"), "two\n")

        # Without a number: the session's newest change.
        latest = eng.undo()
        self.assertTrue(latest["ok"], latest)

    def test_rewind_refused_reports_kind(self) -> None:
        eng = self.engine(session="s")
        eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": '"world"', "newText": '"there"'}]}, turn="t1")
        with open(os.path.join(self.root, "app.py"), "w") as f:  # someone else rewrites the line
            f.write(APP.replace('"world"', '"elsewhere"'))
        r = eng.rewind("t1")
        self.assertFalse(r["ok"])
        self.assertEqual(r.get("kind"), "conflict")
        self.assertIn('"elsewhere"', self.read("app.py"))

    def test_tools_definitions(self) -> None:
        eng = self.engine()
        names = {t["function"]["name"] for t in eng.tools("openai")}
        self.assertIn("edit_file", names)
        anth = self.engine(tools="anthropic").tools("anthropic-native")
        self.assertEqual(anth[0]["name"], "str_replace_based_edit_tool")

    def test_journal_has_session_and_turns(self) -> None:
        eng = self.engine(session="journaled")
        eng.call("read_file", {"path": "app.py"}, turn="t1")
        eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": "Hello", "newText": "Hey"}]}, turn=2)
        eng.close()
        out = subprocess.run([binary(), "log", "--root", self.root, "--json"], capture_output=True, text=True, check=True)
        rows = [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
        if len(rows) == 1 and isinstance(rows[0], list):
            rows = rows[0]
        mine = [r for r in rows if r.get("session") == "journaled"]
        self.assertEqual(len(mine), 2, out.stdout)
        self.assertEqual(sorted(str(r.get("turn")) for r in mine), ["2", "t1"])

    def test_threads_share_one_engine(self) -> None:
        n = 8
        for i in range(n):
            with open(os.path.join(self.root, f"f{i}.txt"), "w") as f:
                f.write(f"value {i}\n")
        eng = self.engine()
        replies = []

        def edit(i: int) -> None:
            replies.append(eng.call("edit_file", {"path": f"f{i}.txt", "edits": [{"oldText": f"value {i}", "newText": f"changed {i}"}]}))

        threads = [threading.Thread(target=edit, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(len(replies), n)
        self.assertTrue(all(r.ok for r in replies), [r.text for r in replies if not r.ok])
        for i in range(n):
            self.assertEqual(self.read(f"f{i}.txt"), f"changed {i}\n")

    def test_closed_engine_refuses(self) -> None:
        eng = self.engine()
        with eng:
            self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)
        with self.assertRaises(vfsctl.VfsctlError):
            eng.call("read_file", {"path": "app.py"})


class TestProcessFailures(Workspace):
    def test_killed_between_calls_restarts(self) -> None:
        eng = self.engine()
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)
        eng._proc.kill()
        eng._proc.wait()
        r = eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": "Hello", "newText": "Hey"}]})
        self.assertTrue(r.ok, r.text)
        self.assertIn("Hey", self.read("app.py"))

    def test_call_after_an_interrupted_call_is_answered(self) -> None:
        # A KeyboardInterrupt raised in Python only (a notebook's interrupt, an alarm's
        # handler) while a call waits: vfsctl still runs that call and answers it.
        # The next call must get its own reply, not the abandoned one's.
        eng = self.engine(session="intr", tools="native,shell")
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)
        pid = eng._proc.pid

        def interrupt(signum: int, frame: object) -> None:
            raise KeyboardInterrupt

        old = signal.signal(signal.SIGALRM, interrupt)
        self.addCleanup(signal.signal, signal.SIGALRM, old)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with self.assertRaises(KeyboardInterrupt):
            eng.call("run_command", {"command": "sleep 1; echo done > ran.txt"})
        r = eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": "Hello", "newText": "Hey"}]})
        self.assertTrue(r.ok, r.text)
        self.assertEqual(r.tool, "edit_file")
        self.assertIn("Hey", self.read("app.py"))
        self.assertEqual(self.read("ran.txt"), "done\n")
        self.assertEqual(eng._proc.pid, pid, "the process was restarted")

    def test_interrupt_while_the_line_is_written(self) -> None:
        # A KeyboardInterrupt inside the write leaves part of the line in vfsctl's
        # input; the next line joined to it would be no call. vfsctl is stopped (so
        # the pipe fills and the write blocks) to make the timing sure.
        eng = self.engine(session="cut")
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)
        pid = eng._proc.pid

        def interrupt(signum: int, frame: object) -> None:
            raise KeyboardInterrupt

        old = signal.signal(signal.SIGALRM, interrupt)
        self.addCleanup(signal.signal, signal.SIGALRM, old)
        os.kill(pid, signal.SIGSTOP)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            with self.assertRaises(KeyboardInterrupt):
                eng.call("write_file", {"path": "big.txt", "content": "x" * (1 << 20)})
        finally:
            os.kill(pid, signal.SIGCONT)
        r = eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": "Hello", "newText": "Hey"}]})
        self.assertTrue(r.ok, r.text)
        self.assertIn("Hey", self.read("app.py"))
        self.assertFalse(os.path.exists(os.path.join(self.root, "big.txt")))

    def test_next_call_waits_for_the_abandoned_one(self) -> None:
        # vfsctl finishes an abandoned call before it reads the next: the next call's
        # wait (timeout 1 s here) starts when the abandoned call's reply is read, so
        # a 3 s command left running neither fails the next call nor is stopped.
        eng = self.engine(session="owed", tools="native,shell", timeout=1)
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)

        def interrupt(signum: int, frame: object) -> None:
            raise KeyboardInterrupt

        old = signal.signal(signal.SIGALRM, interrupt)
        self.addCleanup(signal.signal, signal.SIGALRM, old)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with self.assertRaises(KeyboardInterrupt):
            eng.call("run_command", {"command": "sleep 3; echo done > ran.txt", "timeoutMs": 20000})
        r = eng.call("edit_file", {"path": "app.py", "edits": [{"oldText": "Hello", "newText": "Hey"}]})
        self.assertTrue(r.ok, r.text)
        self.assertIn("Hey", self.read("app.py"))
        self.assertEqual(self.read("ran.txt"), "done\n")

    def test_traceparent_goes_on_the_call_line(self) -> None:
        # vfsctl parents a call's span by its line's traceparent (the Go tests check
        # the spans); here, each call's own context reaches the line, none when none.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        fake = write_script(
            tmp,
            "vfsctl",
            "import json, sys\n"
            "for line in sys.stdin:\n"
            "    got = json.loads(line)\n"
            "    reply = {'id': got['id'], 'ok': True, 'kind': None, 'tool': got['tool'], 'txn': None,\n"
            "             'text': json.dumps({k: got.get(k) for k in ('traceparent', 'tracestate')})}\n"
            "    print(json.dumps(reply), flush=True)\n",
        )
        eng = self.engine(binary=fake)
        tp1 = "00-" + "1" * 32 + "-" + "1" * 16 + "-01"
        tp2 = "00-" + "2" * 32 + "-" + "2" * 16 + "-01"
        got = [
            json.loads(eng.call("read_file", {"path": "app.py"}, traceparent=tp1).text),
            json.loads(eng.call("read_file", {"path": "app.py"}, traceparent=tp2, tracestate="k=v").text),
            json.loads(eng.call("read_file", {"path": "app.py"}).text),
        ]
        self.assertEqual(
            got,
            [
                {"traceparent": tp1, "tracestate": None},
                {"traceparent": tp2, "tracestate": "k=v"},
                {"traceparent": None, "tracestate": None},
            ],
        )

    def test_death_during_a_call_is_an_error_then_restarts(self) -> None:
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        marker = os.path.join(tmp, "died-once")
        # Dies on its first call without answering; after that, runs the real vfsctl.
        fake = write_script(
            tmp,
            "vfsctl",
            "import os, sys\n"
            f"marker = {marker!r}\n"
            "if not os.path.exists(marker):\n"
            "    open(marker, 'w').close()\n"
            "    sys.stdin.readline()\n"
            "    sys.stderr.write('boom\\n')\n"
            "    sys.exit(3)\n"
            f"os.execv({binary()!r}, [{binary()!r}] + sys.argv[1:])\n",
        )
        eng = self.engine(binary=fake)
        with self.assertRaises(vfsctl.VfsctlError) as cm:
            eng.call("read_file", {"path": "app.py"})
        self.assertIn("exit status 3", str(cm.exception))
        self.assertIn("boom", str(cm.exception))
        self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)

    def test_stalled_process_times_out(self) -> None:
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        fake = write_script(tmp, "vfsctl", "import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n")
        eng = self.engine(binary=fake, timeout=1.0)
        start = time.monotonic()
        with self.assertRaises(vfsctl.VfsctlError) as cm:
            eng.call("read_file", {"path": "app.py"})
        self.assertLess(time.monotonic() - start, 30)  # bounded, not a hang
        self.assertIn("no reply", str(cm.exception))

    def test_command_gets_its_own_time(self) -> None:
        # run_command's timeoutMs, not the Engine's timeout, bounds the wait: the
        # Engine once killed vfsctl after its timeout, leaving the command running
        # unrecorded, its writes later journaled as no session's.
        eng = self.engine(session="s", tools="native,shell", timeout=1.0)
        r = eng.call("run_command", {"command": "sleep 3; echo late > late.txt", "timeoutMs": 20000}, turn="t1")
        self.assertTrue(r.ok, r.text)
        self.assertEqual(self.read("late.txt"), "late\n")
        out = subprocess.run([binary(), "log", "--root", self.root, "--json"], capture_output=True, text=True, check=True)
        calls = [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
        ran = [c for c in calls if c.get("tool") == "run_command"]
        self.assertEqual(len(ran), 1, out.stdout)
        self.assertEqual(ran[0].get("session"), "s")
        self.assertIn("late.txt", json.dumps(ran[0]))

    def test_stalled_process_is_asked_to_stop_and_its_answer_kept(self) -> None:
        # Past its time the process gets SIGTERM, on which vfsctl ends a running
        # command, records it and answers; that answer is the call's reply.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        fake = write_script(
            tmp,
            "vfsctl",
            "import json, signal, sys, time\n"
            "line = {'id': None}\n"
            "def stop(*_):\n"
            "    print(json.dumps({'id': line['id'], 'ok': True, 'kind': None, 'text': 'stopped and recorded', 'txn': 7}), flush=True)\n"
            "    sys.exit(0)\n"
            "signal.signal(signal.SIGTERM, stop)\n"
            "line = json.loads(sys.stdin.readline())\n"
            "time.sleep(600)\n",
        )
        # 3 s: the stand-in must have read the line before it is asked to stop.
        eng = self.engine(binary=fake, timeout=3.0)
        start = time.monotonic()
        r = eng.call("read_file", {"path": "app.py"})
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual((r.ok, r.text, r.txn), (True, "stopped and recorded", 7))

    def test_a_program_that_is_not_vfsctl_is_an_error(self) -> None:
        # A wrapper gone wrong that echoes its input: its line has the id but no
        # ok or text, and once came back as a refusal with no kind and no text.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        fake = write_script(tmp, "vfsctl", "import sys\nfor l in sys.stdin:\n    print(l, end='', flush=True)\n")
        eng = self.engine(binary=fake)
        with self.assertRaises(vfsctl.VfsctlError) as cm:
            eng.call("read_file", {"path": "app.py"})
        self.assertIn("is not vfsctl", str(cm.exception))

    def test_missing_binary_is_clear(self) -> None:
        with self.assertRaises(vfsctl.VfsctlError) as cm:
            vfsctl.Engine(self.root, binary=os.path.join(self.root, "nope"))
        self.assertIn("does not exist", str(cm.exception))
        old = os.environ.pop("VFSCTL", None)
        path = os.environ.get("PATH", "")
        os.environ["PATH"] = self.root
        try:
            with self.assertRaises(vfsctl.VfsctlError) as cm:
                vfsctl.Engine(self.root)
            self.assertIn("not found", str(cm.exception))
        finally:
            os.environ["PATH"] = path
            if old is not None:
                os.environ["VFSCTL"] = old

    def test_binary_from_environment(self) -> None:
        old = os.environ.get("VFSCTL")
        os.environ["VFSCTL"] = binary()
        try:
            eng = vfsctl.Engine(self.root)
            self.addCleanup(eng.close)
            self.assertEqual(eng.binary, binary())
            self.assertTrue(eng.call("read_file", {"path": "app.py"}).ok)
        finally:
            if old is None:
                del os.environ["VFSCTL"]
            else:
                os.environ["VFSCTL"] = old


class TestCodeframeExample(Workspace):
    def test_example_end_to_end(self) -> None:
        sys.path.insert(0, os.path.join(CLIENT, "examples"))
        import codeframe_tools

        os.remove(os.path.join(self.root, "app.py"))
        old = os.environ.get("VFSCTL")
        os.environ["VFSCTL"] = binary()
        try:
            tools = codeframe_tools.FileTools(self.root, session="cf")
            self.addCleanup(tools.close)
            tools.new_turn()
            made = tools.run("create_file", {"path": "app.py", "content": APP})
            self.assertFalse(made["is_error"], made)
            before = hashlib.sha256(self.read("app.py").encode()).hexdigest()
            edited = tools.run(
                "edit_file",
                {"path": "app.py", "edits": [{"search": "print(“Hello, ” + name)", "replace": "print(“Hi, ” + name)"}]},
            )
            self.assertFalse(edited["is_error"], edited)
            self.assertEqual(self.read("app.py"), APP.replace("Hello", "Hi"))
            again = tools.run("create_file", {"path": "app.py", "content": "oops\n"})
            self.assertTrue(again["is_error"])
            self.assertEqual(again["kind"], "file_exists")
            self.assertEqual(self.read("app.py"), APP.replace("Hello", "Hi"))
            twice = tools.run("edit_file", {"path": "app.py", "edits": [{"search": "name", "replace": "who"}]})
            self.assertEqual(twice["kind"], "multiple_matches")
            r = tools.engine.rewind("t1")
            self.assertTrue(r["ok"], r)
            self.assertFalse(os.path.exists(os.path.join(self.root, "app.py")))
            self.assertNotEqual(before, "")
        finally:
            if old is None:
                os.environ.pop("VFSCTL", None)
            else:
                os.environ["VFSCTL"] = old


if __name__ == "__main__":
    unittest.main()

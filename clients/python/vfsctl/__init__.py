"""A client for vfsctl, the transactional edit engine behind an agent's file tools.

It keeps one ``vfsctl call`` process per Engine and sends it one tool call at a time,
so an agent written in Python gets vfsctl's matching, refusals, journal and undo with
no glue of its own::

    import vfsctl

    with vfsctl.Engine("/path/to/workspace", session="agent-1") as eng:
        r = eng.call("edit_file", {"path": "app.py", "edits": [
            {"oldText": "print(“Hello”)", "newText": "print(“Hi”)"}]}, turn="t1")
        print(r.ok, r.kind, r.text)   # a refusal is a Reply with ok False, never raised
        eng.rewind("t1")              # every change of turn t1 and after, taken back

Standard library only (Python 3.9 or newer). The binary is found from ``binary=``,
else the ``VFSCTL`` environment variable, else ``PATH``.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import shutil
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

__all__ = ["Engine", "Reply", "VfsctlError", "find_binary"]

__version__ = "0.1.0"


class VfsctlError(Exception):
    """vfsctl could not answer: the binary is missing, its process died or stalled,
    or an operator's command failed to run. A refused tool call is not an error: it
    comes back as a Reply with ``ok`` False."""


@dataclass(frozen=True)
class Reply:
    """One tool call's answer, as ``vfsctl call`` prints it."""

    ok: bool
    kind: Optional[str]  # the refusal's stable kind (text_not_found, ...); None on success
    text: str  # what the model reads: the tool result's content
    txn: Optional[int]  # the journal's number for the call, None when it has none
    tool: str = ""

    @property
    def is_error(self) -> bool:
        """For a tool result block: True when the model should see an error."""
        return not self.ok


def find_binary(binary: Optional[str] = None) -> str:
    """The vfsctl binary to run: binary, else $VFSCTL, else vfsctl on PATH."""
    cand = binary or os.environ.get("VFSCTL") or shutil.which("vfsctl")
    if not cand:
        raise VfsctlError(
            "vfsctl was not found: pass binary=, set VFSCTL to its path, or put it on PATH "
            "(go install github.com/vfsctl/vfsctl/cmd/vfsctl@latest)."
        )
    if os.sep in cand or (os.altsep and os.altsep in cand):
        if not os.access(cand, os.X_OK):
            raise VfsctlError(f"vfsctl binary {cand!r} does not exist or is not executable.")
        return cand
    found = shutil.which(cand)
    if not found:
        raise VfsctlError(f"vfsctl binary {cand!r} was not found on PATH.")
    return found


_DEAD = object()  # what the reader thread queues when the process's output ends


class Engine:
    """One workspace and one session of tool calls, through a long-lived
    ``vfsctl call`` process.

    root: the workspace root. session: the journal's session name (a new one when
    left out; rewind needs it). tools: the tool set (``native``, ``anthropic``,
    ``codex``, ``search-replace``, ``all`` or a comma-separated list). guard and
    durability: as ``vfsctl call``'s flags. timeout: seconds to wait for one reply
    (for run_command, its timeoutMs and 30 s, when longer) before the process is
    taken for stalled: it is asked to stop (SIGTERM: vfsctl records a running
    command and answers), then killed, and the call answered with a VfsctlError
    when no answer came.

    Safe to use from several threads: calls are sent one at a time, in order.
    """

    def __init__(
        self,
        root: Union[str, "os.PathLike[str]"],
        session: Optional[str] = None,
        tools: Optional[str] = None,
        binary: Optional[str] = None,
        guard: Optional[str] = None,
        durability: Optional[str] = None,
        timeout: float = 120.0,
    ) -> None:
        self.root = os.path.abspath(os.fspath(root))
        if not os.path.isdir(self.root):
            raise VfsctlError(f"The workspace root {self.root!r} is not a folder.")
        self.session = session or "py-" + uuid.uuid4().hex[:12]
        self.tools_set = tools
        self.binary = find_binary(binary)
        self.guard = guard
        self.durability = durability
        self.timeout = timeout
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._proc: Optional[subprocess.Popen] = None
        self._replies: "queue.Queue[Any]" = queue.Queue()
        self._stderr: List[str] = []
        # Calls left waiting by an exception (a KeyboardInterrupt): id -> the time by
        # which their reply is due. The process answers them before any later call.
        self._abandoned: Dict[int, float] = {}
        self._closed = False

    # -- the call process -------------------------------------------------------

    def _start(self) -> None:
        argv = [self.binary, "call", "--root", self.root, "--session", self.session]
        if self.tools_set:
            argv += ["--tools", self.tools_set]
        if self.guard:
            argv += ["--guard", self.guard]
        if self.durability:
            argv += ["--durability", self.durability]
        try:
            proc = subprocess.Popen(
                argv,
                cwd=self.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as e:
            raise VfsctlError(f"Cannot start {self.binary!r}: {e}.") from e
        self._proc = proc
        self._replies = queue.Queue()
        self._stderr = []
        self._abandoned = {}
        replies, errlines = self._replies, self._stderr
        threading.Thread(target=_pump, args=(proc.stdout, replies), daemon=True).start()
        threading.Thread(target=_collect, args=(proc.stderr, errlines), daemon=True).start()

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        _reap(proc, 10)
        _close_pipes(proc)

    def _drop_process(self) -> None:
        """Ends the process without waiting: a call's line was cut off while it was
        written, and the rest of it, joined to the next line, would be no call. SIGTERM
        lets vfsctl end and record a command still running for an abandoned call."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.terminate()
        except OSError:
            pass

        def reap() -> None:
            _reap(proc, 10)
            _close_pipes(proc)

        threading.Thread(target=reap, daemon=True).start()

    def _died(self, why: str) -> VfsctlError:
        """Ends a process that failed a call; the next call starts a new one."""
        proc, self._proc = self._proc, None
        code = None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            code = proc.wait()
            _close_pipes(proc)
        tail = " ".join(self._stderr[-5:]).strip()
        msg = f"vfsctl {why}"
        if code is not None:
            msg += f" (exit status {code})"
        if tail:
            msg += f": {tail}"
        return VfsctlError(
            msg + ". The call may or may not have been applied: `vfsctl log` shows it. "
            "The next call starts a new vfsctl process."
        )

    def _wait_for(self, tool: str, args: Any) -> float:
        """How long to wait for the reply: timeout, or for run_command the command's
        own time (timeoutMs, 120 s when not sent) and a margin for vfsctl to record
        what it changed, whichever is longer."""
        if tool != "run_command" or not isinstance(args, dict):
            return self.timeout
        ms = 120000.0
        for name in ("timeoutMs", "timeout_ms", "timeout"):
            v = args.get(name)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
                ms = float(v)
                break
        return max(self.timeout, ms / 1000 + 30)

    def _reply(self, ident: int, wait: float) -> Any:
        """The next line of the process for call ident, within wait seconds (else
        queue.Empty). A reply to an earlier call is dropped: that call was abandoned
        (a KeyboardInterrupt, say, raised in Python only while it waited), and the
        process answered it all the same, before this one. While such replies are
        due, the wait is theirs; this call's wait starts once they are read."""
        deadline: Optional[float] = None
        try:
            while True:
                if self._abandoned:
                    until = max(self._abandoned.values())
                else:
                    if deadline is None:
                        deadline = time.monotonic() + wait
                    until = deadline
                got = self._replies.get(timeout=max(0.0, until - time.monotonic()))
                old = got.get("id") if isinstance(got, dict) else None
                if isinstance(old, int) and not isinstance(old, bool) and old < ident:
                    self._abandoned.pop(old, None)
                    continue
                if old == ident:
                    self._abandoned.clear()
                return got
        except queue.Empty:
            raise
        except BaseException:
            # This call is abandoned in turn: its reply is due by its own deadline,
            # or, while earlier replies are due, by theirs and its own wait after.
            if deadline is None:
                deadline = max(self._abandoned.values(), default=time.monotonic()) + wait
            self._abandoned[ident] = deadline
            raise

    def _stop_stalled(self, ident: int) -> Any:
        """Asks a process that passed its time to stop (SIGTERM), as vfsctl expects:
        it ends a running command's process group, records what the command
        changed, and answers the call. Returns that answer, or None when none came
        within 10 s; the next call starts a new process either way."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        self._abandoned.clear()  # their time is up too
        got = None
        if proc.poll() is None:
            proc.terminate()
            try:
                got = self._reply(ident, 10)
            except queue.Empty:
                pass
            _reap(proc, 5)
        self._proc = proc  # _died reports its exit status and closes its pipes
        if isinstance(got, dict) and got.get("id") == ident:
            self._proc = None
            _close_pipes(proc)
            return got
        return None

    # -- the API ----------------------------------------------------------------

    def call(
        self,
        tool: str,
        args: Any,
        turn: Optional[Union[str, int]] = None,
        traceparent: Optional[str] = None,
        tracestate: Optional[str] = None,
    ) -> Reply:
        """Runs one tool call and returns its Reply. A refusal (ok False) is a Reply,
        never an exception; VfsctlError means vfsctl itself could not answer.

        traceparent (and tracestate): the W3C trace context of the runtime's span for
        this call, which parents the call's span when vfsctl traces (the process is
        long-lived: TRACEPARENT in its environment would parent every call under the
        first one's). vfsctl ignores one that is not valid; a tracestate is sent
        only with a traceparent."""
        line: Dict[str, Any] = {"tool": tool, "args": args}
        if turn is not None:
            line["turn"] = turn
        if traceparent is not None:
            line["traceparent"] = traceparent
            if tracestate is not None:
                line["tracestate"] = tracestate
        try:
            # NaN and Infinity are not JSON, and a lone surrogate (what os.listdir
            # gives for a name that is not UTF-8) is no text vfsctl can read: vfsctl
            # would answer without the id, and the Engine take that as out of turn.
            json.dumps(line, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except ValueError as e:  # UnicodeEncodeError is one
            return Reply(
                ok=False,
                kind="invalid_input",
                text=f"The call's arguments cannot be sent as JSON ({e}); nothing was sent. "
                "Send finite numbers, and text without lone surrogates.",
                txn=None,
                tool=tool,
            )
        with self._lock:
            if self._closed:
                raise VfsctlError("This Engine is closed.")
            if self._proc is not None and self._proc.poll() is not None:
                _close_pipes(self._proc)  # ended between calls: start again
                self._proc = None
            if self._proc is None:
                self._start()
            ident = next(self._ids)
            line["id"] = ident
            data = json.dumps(line, ensure_ascii=False) + "\n"
            proc = self._proc
            assert proc is not None and proc.stdin is not None
            try:
                proc.stdin.write(data)
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise self._died("exited before it could take the call") from None
            except BaseException:
                self._drop_process()  # part of the line may be sent: never a call
                raise
            wait = self._wait_for(tool, args)
            try:
                got = self._reply(ident, wait)
            except queue.Empty:
                got = self._stop_stalled(ident)
                if got is None:
                    raise self._died(f"gave no reply within {wait:g} s and was stopped") from None
            if got is _DEAD:
                raise self._died("exited while the call ran")
            if not isinstance(got, dict) or got.get("id") != ident:
                raise self._died(f"answered out of turn ({str(got)[:200]!r})")
            if not isinstance(got.get("ok"), bool) or not isinstance(got.get("text"), str):
                raise self._died(
                    f"answered {str(got)[:200]!r}, which has no ok and text: {self.binary!r} is not vfsctl, or is too old"
                )
            return Reply(
                ok=bool(got.get("ok")),
                kind=got.get("kind"),
                text=got.get("text") or "",
                txn=got.get("txn"),
                tool=got.get("tool") or tool,
            )

    def rewind(self, turn: Union[str, int], dry_run: bool = False) -> Dict[str, Any]:
        """Takes back every change this session made in turn and after it, as one
        new journaled call (``vfsctl rewind``). Returns its JSON reply: ``ok``,
        ``text`` (with the diff), ``txn``, ``reverts``; a refusal has ``ok`` False
        and a ``kind`` (conflict names what is in the way)."""
        argv = ["rewind", "--session", self.session, "--turn", str(turn)]
        return self._operator(argv, dry_run)

    def undo(self, txn: Optional[int] = None, dry_run: bool = False) -> Dict[str, Any]:
        """Reverts call txn (``vfsctl undo N``), or, without txn, this session's
        newest change not yet undone. Returns the JSON reply as rewind does."""
        argv = ["undo"] + ([str(int(txn))] if txn is not None else ["--session", self.session])
        return self._operator(argv, dry_run)

    def tools(self, format: str = "openai") -> Any:
        """The tool definitions to put in a model request: ``openai``,
        ``anthropic``, ``mcp``, ``json``, or a vendor's native declaration
        (``anthropic-native``, ``openai-native``)."""
        argv = [self.binary, "tools", "--format", format]
        if self.tools_set:
            argv += ["--tools", self.tools_set]
        out = self._run(argv)
        if out.returncode != 0:
            raise VfsctlError(f"vfsctl tools failed (exit status {out.returncode}): {out.stderr.strip()}")
        return json.loads(out.stdout)

    def close(self) -> None:
        """Ends the call process (its pending replies are all answered first)."""
        with self._lock:
            self._closed = True
            self._stop()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- operators' commands ----------------------------------------------------

    def _operator(self, argv: List[str], dry_run: bool) -> Dict[str, Any]:
        argv = [self.binary] + argv + ["--root", self.root, "--json"]
        if dry_run:
            argv.append("--dry-run")
        out = self._run(argv)
        try:
            reply = json.loads(out.stdout)
        except ValueError:
            raise VfsctlError(
                f"{' '.join(argv[1:3])} failed (exit status {out.returncode}): {out.stderr.strip() or out.stdout.strip()}"
            ) from None
        if not isinstance(reply, dict):
            raise VfsctlError(f"{argv[1]} printed {out.stdout[:200]!r}, not a JSON object.")
        return reply

    def _run(self, argv: List[str]) -> "subprocess.CompletedProcess[str]":
        try:
            return subprocess.run(
                argv, cwd=self.root, capture_output=True, text=True, encoding="utf-8", timeout=self.timeout
            )
        except subprocess.TimeoutExpired:
            raise VfsctlError(f"{' '.join(argv[1:2])} gave no answer within {self.timeout:g} s.") from None
        except OSError as e:
            raise VfsctlError(f"Cannot run {self.binary!r}: {e}.") from e


def _reap(proc: subprocess.Popen, seconds: float) -> None:
    """Waits for proc to end, and kills it after seconds."""
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _close_pipes(proc: subprocess.Popen) -> None:
    for f in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if f:
                f.close()
        except OSError:
            pass


def _pump(stream: Any, out: "queue.Queue[Any]") -> None:
    """Queues each reply line of the call process; _DEAD when its output ends."""
    try:
        for line in stream:
            line = line.strip()
            if not line:
                continue
            try:
                out.put(json.loads(line))
            except ValueError:
                out.put(line)
    except (OSError, ValueError):
        pass
    out.put(_DEAD)


def _collect(stream: Any, lines: List[str]) -> None:
    """Keeps the last lines the process wrote on stderr, for error messages."""
    try:
        for line in stream:
            lines.append(line.strip())
            del lines[:-20]
    except (OSError, ValueError):
        pass

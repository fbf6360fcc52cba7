// vfsctl for pi: replaces pi's read, edit and write tools with vfsctl's, through one
// `vfsctl call` process per pi session, runs bash's commands under `vfsctl exec`, labels
// every call with pi's prompt and turn, and adds /undo, /rewind and /edits. When vfsctl is missing or too old it says so and
// leaves pi's own tools in place.
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { extname, isAbsolute, resolve } from "node:path";
import {
  type BashOperations,
  createBashToolDefinition,
  createEditToolDefinition,
  createReadToolDefinition,
  createWriteToolDefinition,
  type ExtensionAPI,
  type ExtensionContext,
  getShellConfig,
} from "@earendil-works/pi-coding-agent";
import { binaryPath, open } from "vfsctl";

type Reply = { ok: boolean; kind: string | null; text: string; txn: number | null };
type Engine = { call(tool: string, args: unknown, opts?: { turn?: string }): Promise<Reply>; close(): Promise<void> };

// Images go to pi's own read: vfsctl reads text files only.
const imageExts = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"]);

// What the tools need of the binary: the call protocol with turns, rewind by turn, and
// stats per session. Checked by asking the binary, not by its version string.
function probe(): { bin: string; version: string; exec: boolean } | { problem: string } {
  let bin: string;
  try {
    bin = binaryPath();
  } catch (e) {
    return { problem: `vfsctl is not installed: ${(e as Error).message}` };
  }
  const run = (args: string[]) => execFileSync(bin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 10000 });
  let version: string;
  try {
    version = run(["--version"]).split("\n")[0].trim();
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return { problem: `vfsctl is not installed: there is no ${bin}.` };
    return { problem: `vfsctl could not be run (${bin}): ${(e as Error).message.split("\n")[0]}` };
  }
  const lacks: string[] = [];
  const help = (cmd: string) => {
    try {
      return run([cmd, "--help"]);
    } catch (e) {
      return String((e as { stdout?: string }).stdout ?? "") + String((e as { stderr?: string }).stderr ?? "");
    }
  };
  if (!help("call").includes('"turn"')) lacks.push("turn labels in vfsctl call");
  if (!help("rewind").includes("--turn")) lacks.push("vfsctl rewind --turn");
  if (!help("stats").includes("--session")) lacks.push("vfsctl stats --session");
  if (lacks.length) {
    return { problem: `${version} (${bin}) is too old for the vfsctl extension: it lacks ${lacks.join(", ")}. Install a newer vfsctl.` };
  }
  // Commands through vfsctl exec: without it, pi's own bash stays and the rest works.
  return { bin, version, exec: help("exec").includes("--turn") };
}

// vfsctl's replies name its own tools; the model knows pi's.
function piNames(text: string): string {
  return text
    .replace(/\bread_file\b/g, "read")
    .replace(/\bedit_file\b/g, "edit")
    .replace(/\b(write_file|create_file)\b/g, "write");
}

// pi's edit renderer shows diffs as "+12 line" / "-12 line" / " 12 line" with "..."
// between hunks; vfsctl replies with a unified diff. Converts the one to the other.
function displayDiff(unified: string): { diff: string; firstChangedLine?: number } {
  const rows: [string, number, string][] = [];
  let oldLine = 0;
  let newLine = 0;
  let first: number | undefined;
  let inHunk = false;
  for (const line of unified.split("\n")) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (h) {
      if (inHunk) rows.push([" ", 0, "..."]);
      oldLine = Number(h[1]);
      newLine = Number(h[2]);
      inHunk = true;
      continue;
    }
    if (!inHunk || line.startsWith("\\")) continue;
    if (line.startsWith("+")) {
      first ??= newLine;
      rows.push(["+", newLine++, line.slice(1)]);
    } else if (line.startsWith("-")) {
      first ??= newLine;
      rows.push(["-", oldLine++, line.slice(1)]);
    } else if (line.startsWith(" ")) {
      rows.push([" ", newLine++, line.slice(1)]);
      oldLine++;
    }
  }
  // Line numbers padded to one width, as pi's own diffs are.
  const width = String(Math.max(0, ...rows.map((r) => r[1]))).length;
  const diff = rows.map(([p, n, text]) => `${p}${(n ? String(n) : "").padStart(width, " ")} ${text}`).join("\n");
  return { diff, firstChangedLine: first };
}

// The unified diff at the end of a vfsctl reply, if any.
function unifiedPart(text: string): string {
  const i = text.indexOf("\n--- a/");
  return i < 0 ? "" : text.slice(i + 1);
}

// vfsctl exec writes its own lines to stderr, each starting with this: what it journaled
// first, notes, and "call N: exit 0, 2 files changed" at the end.
const execMarker = Buffer.from("vfsctl exec: ");

// Splits vfsctl exec's own lines out of the command's stderr as it streams: a line that
// starts with the marker is held back and kept; every other byte passes at once.
function execLines(pass: (b: Buffer) => void) {
  const kept: string[] = [];
  let held = Buffer.alloc(0);
  let mode: "start" | "pass" | "keep" = "start";
  const keep = () => kept.push(held.toString("utf8").replace(/\n$/, "").slice(execMarker.length));
  return {
    kept,
    write(chunk: Buffer) {
      let i = 0;
      while (i < chunk.length) {
        if (mode === "start") {
          if (chunk[i] === execMarker[held.length]) {
            held = Buffer.concat([held, chunk.subarray(i, i + 1)]);
            i++;
            if (held.length === execMarker.length) mode = "keep";
          } else {
            if (held.length) pass(held);
            held = Buffer.alloc(0);
            mode = "pass";
          }
          continue;
        }
        const nl = chunk.indexOf(10, i);
        const end = nl < 0 ? chunk.length : nl + 1;
        if (mode === "pass") pass(chunk.subarray(i, end));
        else held = Buffer.concat([held, chunk.subarray(i, end)]);
        i = end;
        if (nl >= 0) {
          if (mode === "keep") keep();
          held = Buffer.alloc(0);
          mode = "start";
        }
      }
    },
    end() {
      if (mode === "keep") keep();
      else if (held.length) pass(held);
      held = Buffer.alloc(0);
    },
  };
}

// The process group vfsctl exec started the command in (its child's pid), read from
// /proc (Linux); 0 when unknown.
function commandGroup(vfsctlPid: number): number {
  try {
    for (const t of readdirSync(`/proc/${vfsctlPid}/task`)) {
      const kids = readFileSync(`/proc/${vfsctlPid}/task/${t}/children`, "utf8").trim();
      if (kids) return Number(kids.split(/\s+/)[0]);
    }
  } catch {
    // not Linux, or already gone
  }
  return 0;
}

// pi's bash tool, its commands run as `vfsctl exec --session S --turn T -- bash -c CMD`
// so that the journal records what they changed and /rewind takes it back. pi's own
// tool definition does the rest (output, truncation, full-output file, renderer); this
// only spawns. A timeout is vfsctl's --timeout (it kills the command's group and still
// journals); an abort sends SIGTERM, which vfsctl forwards to the command's group before
// it journals, and kills the group if the command is still there a second later.
function execOperations(bin: string, labels: () => { root: string; session: string; turn: string }): BashOperations {
  return {
    exec: (command, cwd, { onData, signal, timeout, env }) =>
      new Promise((resolveExec, rejectExec) => {
        if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) {
          rejectExec(new Error("Invalid timeout: must be a finite number of seconds"));
          return;
        }
        if (signal?.aborted) {
          rejectExec(new Error("aborted"));
          return;
        }
        const { root, session, turn } = labels();
        const shell = getShellConfig();
        const fromStdin = shell.commandTransport === "stdin";
        const args = ["exec", "--root", root, "--session", session];
        if (turn) args.push("--turn", turn);
        if (timeout !== undefined) args.push("--timeout", `${Math.max(1, Math.round(timeout * 1000))}ms`);
        args.push("--", shell.shell, ...shell.args);
        if (!fromStdin) args.push(command);
        const child = spawn(bin, args, { cwd, env, detached: true, stdio: [fromStdin ? "pipe" : "ignore", "pipe", "pipe"] });
        if (fromStdin) {
          child.stdin?.on("error", () => {});
          child.stdin?.end(command);
        }
        const errLines = execLines(onData);
        child.stdout?.on("data", onData);
        child.stderr?.on("data", (d: Buffer) => errLines.write(d));
        let killTimer: NodeJS.Timeout | undefined;
        const onAbort = () => {
          if (!child.pid) return;
          const group = commandGroup(child.pid);
          try {
            process.kill(child.pid, "SIGTERM");
          } catch {
            // already gone
          }
          killTimer = setTimeout(() => {
            for (const pid of [group, child.pid!]) {
              try {
                if (pid) process.kill(-pid, "SIGKILL");
              } catch {
                // already gone
              }
            }
          }, 1000);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        // After vfsctl exits, its pipes may stay open in a background process the
        // command started: read while they still talk, as pi does, then let go.
        let code: number | null = null;
        let exited = false;
        let settled = false;
        let ended = 0;
        let idle: NodeJS.Timeout | undefined;
        const finish = () => {
          if (settled) return;
          settled = true;
          if (idle) clearTimeout(idle);
          if (killTimer) clearTimeout(killTimer);
          signal?.removeEventListener("abort", onAbort);
          child.stdout?.destroy();
          child.stderr?.destroy();
          errLines.end();
          const summary = errLines.kept.some((l) => /^call \d+: /.test(l));
          if (signal?.aborted) return rejectExec(new Error("aborted"));
          if (code === 124 && errLines.kept.some((l) => /^call \d+: killed after the timeout/.test(l))) {
            return rejectExec(new Error(`timeout:${timeout}`));
          }
          // No closing line: vfsctl itself failed (the command not run, or its changes
          // not journaled); the model is told what vfsctl said.
          if (!summary) for (const l of errLines.kept) onData(Buffer.from(`vfsctl exec: ${l}\n`));
          resolveExec({ exitCode: code });
        };
        const arm = () => {
          if (!exited) return;
          if (idle) clearTimeout(idle);
          idle = setTimeout(finish, 100);
        };
        child.stdout?.on("data", arm);
        child.stderr?.on("data", arm);
        for (const s of [child.stdout, child.stderr]) {
          s?.on("end", () => {
            if (++ended === 2 && exited) finish();
          });
        }
        child.on("error", (e) => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener("abort", onAbort);
          rejectExec(new Error(`vfsctl exec could not be started (${bin}): ${e.message}`));
        });
        child.on("exit", (c, sig) => {
          exited = true;
          code = c ?? (sig ? 128 + (osConstants.signals[sig] ?? 0) : 1);
          if (ended === 2) finish();
          else arm();
        });
      }),
  };
}

function stripAt(path: string): string {
  return path.startsWith("@") ? path.slice(1) : path;
}

export default function vfsctlExtension(pi: ExtensionAPI) {
  const found = probe();
  let problemShown = false;

  if ("problem" in found) {
    // pi's own tools stay; the user is told at the start of every session.
    pi.on("session_start", async (_event, ctx) => {
      const msg = `vfsctl extension inactive, pi's own read/edit/write are in use. ${found.problem}`;
      if (ctx.hasUI) {
        ctx.ui.notify(msg, "warning");
        ctx.ui.setStatus("vfsctl", "vfsctl: off");
      } else if (!problemShown) {
        process.stderr.write(`${msg}\n`);
      }
      problemShown = true;
    });
    const off = async (_args: string, ctx: ExtensionContext) => ctx.ui.notify(found.problem, "error");
    for (const name of ["undo", "rewind", "edits"]) pi.registerCommand(name, { description: "vfsctl (not available)", handler: off });
    return;
  }

  const bin = found.bin;
  let engine: Engine | null = null;
  let root = process.cwd();
  let session = "";
  let prompt = 0; // pi's prompts in this session, numbered from 1
  let turn = ""; // the label of pi's current turn: p<prompt>.t<turnIndex>

  function sessionId(ctx: ExtensionContext): string {
    return `pi-${ctx.sessionManager.getSessionId()}`;
  }

  function cli(args: string[]): Promise<{ code: number; out: string }> {
    return new Promise((res) => {
      execFile(bin, args, { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 2) : 0;
        res({ code, out: (stdout + (stderr ? (stdout ? "\n" : "") + stderr : "")).trim() });
      });
    });
  }

  type LogEntry = { seq: number; turn?: string; tool: string; state: string; paths?: string[] };
  async function sessionLog(): Promise<LogEntry[]> {
    const r = await cli(["log", "--root", root, "--session", session, "--limit", "0", "--json"]);
    if (r.code !== 0 && !r.out.startsWith("{")) return [];
    const entries: LogEntry[] = [];
    for (const line of r.out.split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        entries.push(JSON.parse(line));
      } catch {
        // a damaged record is reported by vfsctl log itself
      }
    }
    return entries.sort((a, b) => a.seq - b.seq);
  }

  const promptOf = (label?: string) => {
    const m = /^p(\d+)\.t\d+$/.exec(label ?? "");
    return m ? Number(m[1]) : 0;
  };

  pi.on("session_start", async (_event, ctx) => {
    await engine?.close();
    root = ctx.cwd;
    session = sessionId(ctx);
    engine = open({ root, session }) as Engine;
    // A resumed session goes on numbering its prompts where it stopped, so that turn
    // labels stay unique in the journal.
    prompt = Math.max(0, ...(await sessionLog()).map((e) => promptOf(e.turn)));
    turn = "";
    if (ctx.hasUI) ctx.ui.setStatus("vfsctl", `vfsctl: ${session}`);
  });

  pi.on("session_shutdown", async () => {
    const e = engine;
    engine = null;
    await e?.close();
  });

  // Once per prompt (a retry or a compaction restarts the low-level run, not this).
  pi.on("before_agent_start", async () => {
    prompt++;
  });

  pi.on("turn_start", async (event) => {
    turn = `p${Math.max(prompt, 1)}.t${event.turnIndex}`;
  });

  async function call(tool: string, args: Record<string, unknown>): Promise<Reply> {
    if (!engine) engine = open({ root, session }) as Engine;
    return engine.call(tool, args, turn ? { turn } : {});
  }

  function result(r: Reply, details: unknown) {
    return { content: [{ type: "text" as const, text: piNames(r.text) }], details, isError: !r.ok };
  }

  // read: vfsctl's read_file (numbered lines, and the read that write needs).
  const baseRead = createReadToolDefinition(root);
  pi.registerTool({
    ...baseRead,
    renderCall: undefined,
    renderResult: undefined,
    description:
      "Read a text file. Lines come back numbered (\"     1\\tcode\"); the number and tab are not part of the file, so leave them out of edit's oldText. Reads up to 2000 lines from offset (1-based); the reply says how to read on. Images (jpg, png, gif, webp, bmp) are sent as attachments. write may replace an existing file only after its whole content was read.",
    async execute(id, params, signal, onUpdate, ctx) {
      const path = stripAt(params.path);
      if (imageExts.has(extname(path).toLowerCase())) {
        return createReadToolDefinition(ctx.cwd).execute(id, { ...params, path }, signal, onUpdate, ctx);
      }
      const r = await call("read_file", { path, offset: params.offset, limit: params.limit });
      return result(r, undefined);
    },
  });

  // edit: vfsctl's edit_file, with pi's argument shape (prepareArguments folds the older
  // single oldText/newText into edits).
  const baseEdit = createEditToolDefinition(root);
  pi.registerTool({
    ...baseEdit,
    renderCall: undefined,
    renderResult: undefined,
    description:
      "Edit a single file by replacing text. Send all changes to one file in one call as several edits; each edits[].oldText is matched against the file as it was before the call and must occur exactly once, so include enough surrounding lines to make it unique. Copy oldText from the file as read: small differences in quotes, dashes, spaces and indentation are forgiven, nothing else. The whole call is applied or nothing is; the reply shows the diff.",
    async execute(_id, params) {
      const r = await call("edit_file", { path: stripAt(params.path), edits: params.edits.map((e) => ({ oldText: e.oldText, newText: e.newText })) });
      const unified = r.ok ? unifiedPart(r.text) : "";
      return result(r, unified ? { ...displayDiff(unified), patch: unified } : undefined);
    },
  });

  // write: a new file is created (vfsctl create_file); an existing one is replaced
  // (write_file) only if this session read its whole current content, so that a write
  // never blindly overwrites what the model has not seen. The refusal says to read first.
  const baseWrite = createWriteToolDefinition(root);
  pi.registerTool({
    ...baseWrite,
    renderCall: undefined,
    renderResult: undefined,
    description:
      "Write a whole file. Creates the file (and its parent folders) if it does not exist. An existing file is replaced only if you read its whole current content with read in this session; otherwise the write is refused. Prefer edit for changes to part of a file.",
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const path = stripAt(params.path);
      const abs = isAbsolute(path) ? path : resolve(ctx.cwd, path);
      let r = await call(existsSync(abs) ? "write_file" : "create_file", { path, content: params.content });
      // The file came or went between the check and the call: the other tool decides.
      if (!r.ok && (r.kind === "file_exists" || r.kind === "file_not_found")) {
        r = await call(r.kind === "file_exists" ? "write_file" : "create_file", { path, content: params.content });
      }
      return result(r, undefined);
    },
  });

  // bash: pi's own tool, its commands run through vfsctl exec with the session and the
  // turn, so that the journal has what they changed and /rewind takes it back.
  if (found.exec) {
    pi.registerTool(createBashToolDefinition(root, { operations: execOperations(bin, () => ({ root, session, turn })) }));
  }

  // Tells the model, at its next prompt, that files changed under it.
  function tellModel(what: string, out: string) {
    pi.sendMessage({ customType: "vfsctl", content: `${what}\n${out}`, display: true }, { deliverAs: "nextTurn" });
  }

  pi.registerCommand("undo", {
    description: "Undo this session's latest file change (vfsctl undo), showing its diff",
    handler: async (_args, ctx) => {
      const r = await cli(["undo", "--root", root, "--session", session]);
      ctx.ui.notify(r.out || "Nothing to undo.", r.code === 0 ? "info" : "warning");
      if (r.code === 0) tellModel("The user undid the latest file change of this session (vfsctl undo):", r.out);
    },
  });

  pi.registerCommand("edits", {
    description: "What this session's edits got wrong and what vfsctl rescued (vfsctl stats)",
    handler: async (_args, ctx) => {
      const r = await cli(["stats", "--root", root, "--session", session]);
      ctx.ui.notify(r.out, r.code === 0 ? "info" : "warning");
    },
  });

  pi.registerCommand("rewind", {
    description: "Put files back as before the last prompt (/rewind), a turn (/rewind p2.t1), or one picked from a list (/rewind list); --yes skips the confirmation",
    getArgumentCompletions: async (prefix: string) => {
      const turns = [...new Set((await sessionLog()).map((e) => e.turn).filter((t): t is string => !!t))];
      const items = ["list", ...turns.reverse()].filter((v) => v.startsWith(prefix)).map((v) => ({ value: v, label: v }));
      return items.length ? items : null;
    },
    handler: async (args, ctx) => {
      const words = args.trim().split(/\s+/).filter(Boolean);
      const yes = words.includes("--yes");
      const want = words.filter((w) => w !== "--yes")[0] ?? "";
      const log = await sessionLog();
      const changes = log.filter((e) => e.turn && e.tool !== "read_file" && e.state === "committed");
      if (!changes.length) {
        ctx.ui.notify("This session has changed no files through vfsctl: nothing to rewind.", "info");
        return;
      }
      let target = want;
      if (want === "list") {
        // Turns that changed files, newest first, with the files they touched.
        const byTurn = new Map<string, Set<string>>();
        for (const e of changes) {
          const s = byTurn.get(e.turn!) ?? new Set<string>();
          for (const p of e.paths ?? []) s.add(p);
          byTurn.set(e.turn!, s);
        }
        const options = [...byTurn.entries()].reverse().map(([t, paths]) => `${t}: ${[...paths].join(", ")}`);
        const picked = await ctx.ui.select("Rewind to before which turn?", options);
        if (!picked) return;
        target = picked.slice(0, picked.indexOf(":"));
      } else if (!want) {
        // Before the last prompt that changed files: its first journaled turn.
        const last = Math.max(...changes.map((e) => promptOf(e.turn)));
        target = log.find((e) => promptOf(e.turn) === last)?.turn ?? changes[changes.length - 1].turn!;
      }
      const dry = await cli(["rewind", "--root", root, "--session", session, "--turn", target, "--dry-run"]);
      if (dry.code !== 0) {
        ctx.ui.notify(dry.out, "error");
        return;
      }
      if (!yes) {
        if (!ctx.hasUI) {
          process.stdout.write(`${dry.out}\nRun /rewind ${target} --yes to apply.\n`);
          return;
        }
        const ok = await ctx.ui.confirm(`Rewind to before turn ${target}?`, dry.out);
        if (!ok) {
          ctx.ui.notify("Rewind cancelled; nothing written.", "info");
          return;
        }
      }
      const done = await cli(["rewind", "--root", root, "--session", session, "--turn", target]);
      ctx.ui.notify(done.out, done.code === 0 ? "info" : "error");
      if (done.code === 0) tellModel(`The user rewound this session's files to before turn ${target} (vfsctl rewind):`, done.out);
    },
  });
}

// The vfsctl binary for this platform, and the two ways a runtime starts it: an MCP
// server over stdio (spawnServe) or a process that takes tool calls as JSON lines
// (open, call).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const require = createRequire(import.meta.url);

// The per-platform packages this one may have installed, by `${platform}-${arch}`.
// Each holds bin/vfsctl (bin/vfsctl.exe on Windows, which has run under Wine only:
// docs/runtime.md#platforms); linux-x64's is built with cgo (the tree-sitter guards)
// and needs glibc, so it also holds bin/vfsctl-nocgo for other libcs.
const platforms = {
  "linux-x64": "@vfsctl/linux-x64",
  "linux-arm64": "@vfsctl/linux-arm64",
  "darwin-x64": "@vfsctl/darwin-x64",
  "darwin-arm64": "@vfsctl/darwin-arm64",
  "win32-x64": "@vfsctl/win32-x64",
  "win32-arm64": "@vfsctl/win32-arm64",
};

function glibc() {
  try {
    return Boolean(process.report?.getReport()?.header?.glibcVersionRuntime);
  } catch {
    return false;
  }
}

/**
 * The path of the vfsctl binary to run: $VFSCTL when set, else the one the
 * per-platform package installed. Throws, saying what to do, when there is none.
 */
export function binaryPath() {
  if (process.env.VFSCTL) return process.env.VFSCTL;
  const key = `${process.platform}-${process.arch}`;
  const pkg = platforms[key];
  if (!pkg) {
    throw new Error(
      `vfsctl has no prebuilt binary for ${key} (there are: ${Object.keys(platforms).join(", ")}). ` +
        "Build it with `go install github.com/vfsctl/vfsctl/cmd/vfsctl@latest` and set VFSCTL to its path.",
    );
  }
  let dir;
  try {
    dir = require.resolve(`${pkg}/package.json`).slice(0, -"package.json".length);
  } catch {
    throw new Error(
      `The package ${pkg}, which carries vfsctl's binary for ${key}, is not installed. ` +
        "Reinstall vfsctl without --no-optional (or --omit=optional), or set VFSCTL to a vfsctl binary.",
    );
  }
  if (process.platform === "win32") return `${dir}bin/vfsctl.exe`;
  const cgo = `${dir}bin/vfsctl`;
  const plain = `${dir}bin/vfsctl-nocgo`;
  if (existsSync(plain) && !glibc()) return plain;
  return cgo;
}

function flags(opts = {}) {
  const args = [];
  for (const [name, flag] of [
    ["root", "--root"],
    ["session", "--session"],
    ["tools", "--tools"],
    ["guard", "--guard"],
    ["durability", "--durability"],
  ]) {
    if (opts[name] != null) args.push(flag, String(opts[name]));
  }
  return args;
}

/**
 * The command line of `vfsctl serve` (MCP over stdio), for an MCP client that
 * spawns its server itself: { command, args }.
 */
export function serveCommand(opts = {}) {
  return { command: binaryPath(), args: ["serve", ...flags(opts)] };
}

/**
 * Starts `vfsctl serve`: an MCP server speaking JSON-RPC on the child's stdin and
 * stdout. Options: root, session, tools, guard, durability.
 */
export function spawnServe(opts = {}) {
  const { command, args } = serveCommand(opts);
  return spawn(command, args, { cwd: opts.root, stdio: ["pipe", "pipe", "pipe"] });
}

/**
 * A long-lived `vfsctl call` process: call(tool, args, {turn, traceparent,
 * tracestate}) resolves to its
 * reply { ok, kind, text, txn, tool }; a refusal resolves too (ok false). A process
 * that exits fails the calls in flight with an Error, and the next call starts a
 * new one, in the same session. close() ends its input: the calls already sent are
 * answered, then it exits. session is the journal's session name: opts.session, or
 * (when it is left out or empty) one made up for this open() (node-...), which vfsctl rewind and log need.
 */
export function open(opts = {}) {
  // One session for every process this open() starts: a restart after an exit must
  // not forget the reads, nor scatter the calls over names no one knows.
  // "" is no name: as when left out (vfsctl would make one per process).
  const session = opts.session || `node-${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  opts = { ...opts, session };
  let child = null;
  let nextId = 1;
  const waiting = new Map();
  let stderr = "";
  let closed = false;

  function start() {
    const c = spawn(binaryPath(), ["call", ...flags(opts)], { cwd: opts.root, stdio: ["pipe", "pipe", "pipe"] });
    stderr = "";
    c.stderr.setEncoding("utf8");
    c.stderr.on("data", (d) => {
      stderr = (stderr + d).slice(-2000);
    });
    const rl = createInterface({ input: c.stdout });
    rl.on("line", (line) => {
      if (!line.trim()) return;
      let reply;
      try {
        reply = JSON.parse(line);
      } catch {
        return;
      }
      const w = waiting.get(reply.id);
      if (w) {
        waiting.delete(reply.id);
        w.resolve({ ok: reply.ok, kind: reply.kind, text: reply.text, txn: reply.txn, tool: reply.tool });
      }
    });
    // Only the calls sent to this process: a process that could not start still
    // emits 'close', late, when calls may already wait on the next one.
    const fail = (why, landed = "The call may or may not have landed (vfsctl log shows it).") => {
      if (child === c) child = null;
      for (const [id, w] of waiting) {
        if (w.child !== c) continue;
        waiting.delete(id);
        w.reject(new Error(`vfsctl ${why}${stderr ? `: ${stderr.trim()}` : ""}. ${landed}`));
      }
    };
    // 'close' comes after the process ended and its output was read to the end, so
    // every reply it wrote has reached its call first.
    c.on("close", (code, signal) => fail(signal ? `was killed by ${signal}` : `exited with status ${code}`));
    c.on("error", (e) => {
      if (c.pid === undefined) fail(`could not run: ${e.message}`, "Nothing ran.");
      else fail(`failed: ${e.message}`);
    });
    c.stdin.on("error", () => {});
    child = c;
  }

  return {
    session,
    call(tool, args, callOpts = {}) {
      if (closed) return Promise.reject(new Error("This vfsctl session is closed."));
      const id = nextId++;
      const line = { tool, args, id };
      if (callOpts.turn != null) line.turn = callOpts.turn;
      // The runtime's span for this call: the process is long-lived, so TRACEPARENT in
      // its environment would parent every call under the first one's.
      if (callOpts.traceparent != null) {
        line.traceparent = callOpts.traceparent;
        if (callOpts.tracestate != null) line.tracestate = callOpts.tracestate;
      }
      let data;
      try {
        data = JSON.stringify(line) + "\n";
      } catch (e) {
        // A BigInt or a cycle: nothing is sent, and no entry waits for a reply.
        return Promise.reject(new Error(`vfsctl: the call's arguments cannot be sent as JSON (${e.message}); nothing was sent.`));
      }
      if (!child) {
        // spawn says ENOENT for a missing cwd as for a missing binary.
        if (opts.root != null && !isFolder(opts.root)) {
          return Promise.reject(new Error(`vfsctl: the workspace root ${opts.root} is not a folder; nothing was run.`));
        }
        start();
      }
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject, child });
        child.stdin.write(data);
      });
    },
    close() {
      closed = true;
      if (!child) return Promise.resolve();
      const c = child;
      // The end of its input: vfsctl answers the calls already sent, then exits.
      return new Promise((resolve) => {
        c.on("close", () => resolve());
        c.stdin.end();
      });
    },
  };
}

function isFolder(p) {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * One tool call in a process of its own: resolves to the reply. For many calls,
 * open() keeps one process.
 */
export async function call(tool, args, opts = {}) {
  const s = open(opts);
  try {
    return await s.call(tool, args, { turn: opts.turn, traceparent: opts.traceparent, tracestate: opts.tracestate });
  } finally {
    await s.close();
  }
}

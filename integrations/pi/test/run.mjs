// Runs the real pi in RPC mode against a scripted model, with the vfsctl extension
// (or, with --baseline, without it), and checks the files on disk, the tool results pi
// fed back to the model, vfsctl's journal, and /edits, /rewind and /undo.
//
//   node run.mjs --pi PI_CLI_JS --ext EXTENSION_DIR [--baseline | --inactive]
// VFSCTL names the vfsctl binary (the extension finds it through the vfsctl package).
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scriptedModel, toolReplies } from "./scripted-model.mjs";

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
};
const piCli = opt("--pi") && resolve(opt("--pi"));
const ext = opt("--ext") && resolve(opt("--ext"));
// --inactive: VFSCTL names a missing or too old vfsctl; the extension must say so
// and leave pi's own tools in place.
const inactive = argv.includes("--inactive");
const baseline = argv.includes("--baseline") || inactive;
if (!piCli || (!ext && !baseline)) {
  console.error("usage: node run.mjs --pi PI_CLI_JS --ext EXTENSION_DIR [--baseline | --inactive]");
  process.exit(2);
}

let failures = 0;
function check(cond, what, got) {
  if (cond) {
    console.log(`ok   ${what}`);
  } else {
    failures++;
    console.log(`FAIL ${what}${got === undefined ? "" : `\n     got: ${typeof got === "string" ? got : JSON.stringify(got)}`}`);
  }
}

const appPy = `def greet(name):
    print("Hello, " + name)


def total(items):
    result = 0
    for item in items:
        result += item
    return result


def count(items):
    result = 0
    for item in items:
        result += 1
    return result
`;
const notes = "first note\n";

// Prompt 1: the sloppy calls. Prompt 2: one clean edit and a command that changes one
// file and creates another (both rewound later).
const steps = [
  { toolCalls: [{ name: "read", args: { path: "app.py" } }] },
  // Curly quotes for the file's straight ones.
  { toolCalls: [{ name: "edit", args: { path: "app.py", edits: [{ oldText: "print(“Hello, ” + name)", newText: "print(“Hi, ” + name)" }] } }] },
  // A pasted line-number gutter, in the older single oldText/newText shape.
  { toolCalls: [{ name: "edit", args: { path: "app.py", oldText: "     6\t    result = 0\n     7\t    for item in items:\n     8\t        result += item", newText: "    result = 0\n    for item in items:\n        result += item.price" } }] },
  // An ambiguous snippet: two functions start this way.
  { toolCalls: [{ name: "edit", args: { path: "app.py", edits: [{ oldText: "    result = 0\n    for item in items:\n", newText: "    result = 0.0\n    for item in items:\n" }] } }] },
  // A write over a file never read, then a write of a new file.
  { toolCalls: [{ name: "write", args: { path: "notes.txt", content: "overwritten\n" } }] },
  { toolCalls: [{ name: "write", args: { path: "src/new.py", content: "x = 1\n" } }] },
  { text: "Done with the greeting." },
  // Prompt 2.
  { toolCalls: [{ name: "edit", args: { path: "app.py", edits: [{ oldText: "        result += 1", newText: "        result += 2" }] } }] },
  { toolCalls: [{ name: "bash", args: { command: "sed -i 's/first note/first note, by sed/' notes.txt && printf 'made\\n' > made.txt && echo sed-done" } }] },
  // A command past its timeout: pi's message, with the output it printed before.
  { toolCalls: [{ name: "bash", args: { command: "echo partial; sleep 5", timeout: 1 } }] },
  { text: "Counted by two." },
  // Prompt 3, in a new session; prompt 4, back in the first one, resumed.
  { toolCalls: [{ name: "write", args: { path: "other.txt", content: "from the second session\n" } }] },
  { text: "Wrote it." },
  { toolCalls: [{ name: "edit", args: { path: "notes.txt", edits: [{ oldText: "first note", newText: "first note, resumed" }] } }] },
  { text: "Noted." },
];

const ws = mkdtempSync(join(tmpdir(), "vfsctl-pi-ws-"));
const agentDir = mkdtempSync(join(tmpdir(), "vfsctl-pi-agent-"));
const sessions = join(agentDir, "sessions");
mkdirSync(sessions);
writeFileSync(join(ws, "app.py"), appPy);
writeFileSync(join(ws, "notes.txt"), notes);

const model = await scriptedModel(steps);
writeFileSync(
  join(agentDir, "models.json"),
  JSON.stringify({ providers: { scripted: { baseUrl: model.url, api: "openai-completions", apiKey: "none", models: [{ id: "scripted-1", contextWindow: 32000, maxTokens: 4096 }] } } }),
);

const args = [piCli, "--mode", "rpc", "--provider", "scripted", "--model", "scripted-1", "--no-extensions", "--offline", "--session-dir", sessions];
if (!baseline || inactive) args.push("-e", ext);
const pi = spawn(process.execPath, args, { cwd: ws, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" }, stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
pi.stderr.setEncoding("utf8");
pi.stderr.on("data", (d) => (stderr += d));
pi.on("exit", (code) => {
  if (!exiting) {
    console.error(`pi exited (status ${code}) before the test ended; its stderr:\n${stderr}`);
    process.exit(1);
  }
});
let exiting = false;

// RPC: JSON records split on LF only (not on U+2028, as readline would).
const listeners = new Set();
let buf = "";
pi.stdout.setEncoding("utf8");
pi.stdout.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i).replace(/\r$/, "");
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    let rec;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    for (const l of [...listeners]) l(rec);
  }
});
const send = (rec) => pi.stdin.write(JSON.stringify(rec) + "\n");
const notices = [];
const confirms = [];
const selects = [];
let answerConfirm = true;
let answerSelect = (options) => options[0];
const toolEnds = [];
listeners.add((rec) => {
  if (rec.type === "tool_execution_end") toolEnds.push(rec);
  if (rec.type !== "extension_ui_request") return;
  if (rec.method === "select") {
    selects.push(rec);
    send({ type: "extension_ui_response", id: rec.id, value: answerSelect(rec.options) });
  }
  if (rec.method === "notify") notices.push(rec);
  if (rec.method === "confirm") {
    confirms.push(rec);
    send({ type: "extension_ui_response", id: rec.id, confirmed: answerConfirm });
  }
});

function until(pred, what, ms = 60000) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      listeners.delete(l);
      reject(new Error(`timed out waiting for ${what}\npi's stderr:\n${stderr}`));
    }, ms);
    const l = (rec) => {
      if (pred(rec)) {
        clearTimeout(t);
        listeners.delete(l);
        resolve(rec);
      }
    };
    listeners.add(l);
  });
}
let nextId = 1;
async function command(rec) {
  const id = `c${nextId++}`;
  const reply = until((r) => r.type === "response" && r.id === id, `the reply to ${rec.type}`);
  send({ ...rec, id });
  const r = await reply;
  if (!r.success) throw new Error(`${rec.type} failed: ${r.error}`);
  return r.data;
}
async function prompt(message) {
  const settled = until((r) => r.type === "agent_settled", `the end of "${message}"`);
  const data = await command({ type: "prompt", message });
  if (data?.disposition === "started" || data?.disposition === "queued") await settled;
}
// A slash command of the extension: handled at once, its notices arrive just after.
async function slash(message) {
  const before = notices.length;
  const data = await command({ type: "prompt", message });
  if (data?.disposition !== "handled") throw new Error(`${message} was not handled as a command: ${JSON.stringify(data)}`);
  await new Promise((r) => setTimeout(r, 300));
  return notices.slice(before).map((n) => n.message).join("\n");
}

const read = (p) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), "utf8") : null);

try {
  await prompt("Change the greeting to Hi, sum prices in total, and add src/new.py.");
  const state = await command({ type: "get_state" });
  const replies = model.requests.map((r) => toolReplies(r));
  // replies[k] holds what pi fed back for step k-1.
  const app = read("app.py");
  console.log(`--- app.py after the first prompt${baseline ? " (pi's own tools)" : ""}:\n${app}---`);
  console.log("--- the tool results pi fed back:");
  replies.slice(1, 7).forEach((r, k) => console.log(`[${steps[k].toolCalls[0].name}] ${r.join(" | ")}`));

  if (inactive) {
    const warned = notices.find((n) => /vfsctl extension inactive/.test(n.message));
    console.log(`--- the notice: ${warned?.message}`);
    check(warned && warned.notifyType === "warning" && /not installed|too old/.test(warned.message), "pi's UI was told that vfsctl is missing or too old", notices);
  }
  if (baseline) {
    // What the issue reports of pi's own edit: success, and the curly quotes written.
    check(/Successfully replaced 1 block/.test(replies[2][0]), "pi's own edit reports success for the curly-quoted call", replies[2][0]);
    check(app.includes("print(“Hi, ” + name)"), "pi's own edit wrote the curly quotes into app.py", app);
    check(read("notes.txt") === "overwritten\n", "pi's own write overwrote notes.txt unread", read("notes.txt"));
  } else {
    const session = `pi-${state.sessionId}`;
    // Files on disk, against the edits a careful model would have sent.
    const want1 = appPy.replace('print("Hello, " + name)', 'print("Hi, " + name)').replace("        result += item\n", "        result += item.price\n");
    check(app === want1, "app.py: straight quotes kept, the gutter edit landed, the ambiguous edit changed nothing", app);
    check(read("notes.txt") === notes, "notes.txt: the unread write was refused, the file is untouched", read("notes.txt"));
    check(read("src/new.py") === "x = 1\n", "src/new.py: written as new", read("src/new.py"));
    // The replies pi fed back to the model.
    check(/^\s+2\tprint|     2\t    print\("Hello, " \+ name\)/.test(replies[1][0]), "read: numbered lines from vfsctl", replies[1][0]);
    check(/Edited app\.py/.test(replies[2][0]) && /curly quotes/.test(replies[2][0]) && /\+    print\("Hi, " \+ name\)/.test(replies[2][0]), "edit (curly quotes): success, the fold named, the diff with straight quotes", replies[2][0]);
    check(/Edited app\.py/.test(replies[3][0]) && /gutter|line number/i.test(replies[3][0]), "edit (gutter): success, the gutter named", replies[3][0]);
    check(/Found 2 occurrences/.test(replies[4][0]) && /lines 6 and 13/.test(replies[4][0]), "edit (ambiguous): refused, naming both places", replies[4][0]);
    check(/not been read/.test(replies[5][0]) && /\bread\b/.test(replies[5][0]) && !/read_file|write_file|edit_file/.test(replies[5][0]), "write (unread file): refused, telling the model to read first, in pi's tool names", replies[5][0]);
    check(/new\.py/.test(replies[6][0]) && !/not|refused/i.test(replies[6][0].split("\n")[0]), "write (new file): created", replies[6][0]);

    // What pi's renderer gets: its own diff format, and the error flag on refusals.
    const ends = toolEnds.map((e) => ({ tool: e.toolName, isError: e.isError, diff: e.result?.details?.diff }));
    check(ends.map((e) => e.isError).join() === "false,false,false,true,true,false", "pi marks the two refusals as errors, the rest not", ends);
    check(/^ 1 def greet\(name\):\n-2     print\("Hello, " \+ name\)\n\+2     print\("Hi, " \+ name\)\n 3 \n 4 $/.test(ends[1].diff ?? "") && toolEnds[1].result.details.firstChangedLine === 2, "edit's details.diff is in pi's numbered diff format for its renderer", ends[1].diff);

    await prompt("Count by two.");
    check(read("app.py") === want1.replace("        result += 1\n", "        result += 2\n"), "second prompt: its edit landed", read("app.py"));
    check(read("notes.txt") === "first note, by sed\n" && read("made.txt") === "made\n", "second prompt: the bash command changed notes.txt and made made.txt", [read("notes.txt"), read("made.txt")]);
    // What pi fed back for the bash call: the command's output alone, vfsctl's own lines left out.
    const bashReply = toolReplies(model.requests[9]);
    check(bashReply.length === 1 && /^sed-done\s*$/.test(bashReply[0]), "bash: the command's output reached the model, and only it", bashReply);
    const timedOut = toolReplies(model.requests[10]);
    check(timedOut.length === 1 && /^partial\n+Command timed out after 1 seconds$/.test(timedOut[0]) && toolEnds.at(-1)?.isError === true, "bash with a timeout: pi's timeout message after the output so far, an error", { timedOut, isError: toolEnds.at(-1)?.isError });

    // The journal: pi's session and turns.
    const vfsctl = process.env.VFSCTL;
    const log = execFileSync(vfsctl, ["log", "--root", ws, "--session", session, "--limit", "0", "--json"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .sort((a, b) => a.seq - b.seq);
    console.log("--- vfsctl log --session " + session + ":\n" + log.map((e) => `${e.seq} ${e.turn ?? "-"} ${e.tool} ${e.state}${e.kind ? " " + e.kind : ""}`).join("\n"));
    const turns = log.map((e) => e.turn);
    check(log.length === 9 && turns.every((t) => /^p[12]\.t\d+$/.test(t ?? "")), "vfsctl log: every call of pi's session carries pi's prompt and turn", turns);
    check(new Set(turns.filter((t) => t?.startsWith("p1."))).size === 6 && turns.filter((t) => t?.startsWith("p2.")).join() === "p2.t0,p2.t1,p2.t2", "vfsctl log: one turn label per model response, prompt 1 and prompt 2 apart", turns);
    const ran = log.find((e) => e.tool === "exec" && e.turn === "p2.t1");
    check(ran && ran.turn === "p2.t1" && ran.state === "committed" && [...(ran.paths ?? [])].sort().join() === "made.txt,notes.txt", "vfsctl log: the bash command is an exec of pi's session in its turn, naming the files it changed", ran);

    // /edits: this session's stats.
    const edits = await slash("/edits");
    console.log("--- /edits:\n" + edits);
    check(/multiple_matches/.test(edits) && /not_read/.test(edits) && /curly/i.test(edits), "/edits: the session's failures by kind and its rescues", edits);

    // /rewind: declined first (nothing written), then confirmed.
    answerConfirm = false;
    const declined = await slash("/rewind");
    check(confirms.length === 1 && /result \+= 2/.test(confirms[0].message) && /p2\.t/.test(confirms[0].title), "/rewind: the dry run of undoing prompt 2 is shown before asking", confirms[0]);
    check(/cancelled/.test(declined) && read("app.py").includes("result += 2"), "/rewind declined: nothing written", read("app.py"));
    answerConfirm = true;
    const rewound = await slash("/rewind");
    check(read("app.py") === want1, "/rewind confirmed: app.py is as it was after prompt 1", read("app.py"));
    check(read("notes.txt") === notes && read("made.txt") === null, "/rewind confirmed: what the bash command did is taken back too (notes.txt restored, made.txt gone)", [read("notes.txt"), read("made.txt")]);
    check(/Rewound|Reverted|rewound/i.test(rewound), "/rewind: the result is shown", rewound);

    // /undo: the session's latest change, with its diff.
    const undone = await slash("/undo");
    console.log("--- /undo:\n" + undone);
    check(/^[-+]/m.test(undone) && /@@/.test(undone), "/undo: shows the diff", undone);
    check(read("app.py").includes("        result += 2\n"), "/undo after /rewind: the session's latest change was the rewind, so prompt 2's edit is back", read("app.py"));

    // /rewind list: the user picks the turn of the curly-quote edit; everything from
    // there on goes, the new file too.
    answerSelect = (options) => options.find((o) => o.startsWith("p1.t1:"));
    await slash("/rewind list");
    check(selects.length === 1 && selects[0].options[0].startsWith("p2.t") && selects[0].options.some((o) => /^p2\.t1: (made\.txt, notes\.txt|notes\.txt, made\.txt)$/.test(o)) && selects[0].options.some((o) => o === "p1.t5: src/new.py"), "/rewind list: the turns that changed files, newest first, with their files", selects[0]?.options);
    check(read("app.py") === appPy && read("src/new.py") === null && read("notes.txt") === notes && read("made.txt") === null, "/rewind to a picked turn: app.py as it was at the start, src/new.py and made.txt gone", read("app.py"));

    // A new session gets its own vfsctl session and process, the first one's is
    // stopped; resumed, the first one goes on counting its prompts.
    // The vfsctl call process of session s, found by its arguments in /proc.
    const pidOf = (s) => {
      for (const d of readdirSync("/proc")) {
        if (!/^\d+$/.test(d)) continue;
        let argv;
        try {
          argv = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
        } catch {
          continue;
        }
        const i = argv.indexOf("--session");
        if (argv[1] === "call" && i > 0 && argv[i + 1] === s) return Number(d);
      }
      return 0;
    };
    const pid1 = pidOf(session);
    check(pid1 > 0, "one vfsctl call process runs for the session", pid1);
    await command({ type: "new_session" });
    const second = `pi-${(await command({ type: "get_state" })).sessionId}`;
    await prompt("Write other.txt.");
    const pid2 = pidOf(second);
    check(second !== session && pid2 > 0 && pidOf(session) === 0, "a new pi session: a vfsctl process of its own, the first one's stopped", { second, pid2, first: pidOf(session) });
    await command({ type: "switch_session", sessionPath: state.sessionFile });
    await prompt("Amend the note.");
    const lastTurn = (s) => JSON.parse(execFileSync(vfsctl, ["log", "--root", ws, "--session", s, "--limit", "1", "--json"], { encoding: "utf8" }).trim()).turn;
    check(lastTurn(second) === "p1.t0" && lastTurn(session) === "p3.t0" && read("notes.txt") === "first note, resumed\n", "resumed: the first session's next prompt is p3 (p2 came before), the new one's p1", { second: lastTurn(second), first: lastTurn(session) });
    const pid = pidOf(session);
    check(pid > 0 && pidOf(second) === 0, "resumed: the first session has a process again, the second's is stopped", { pid, second: pidOf(second) });
    exiting = true;
    pi.stdin.end();
    await new Promise((r) => pi.on("exit", r));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    check(!alive, "it is stopped when pi ends");
  }
} finally {
  exiting = true;
  if (pi.exitCode === null) {
    pi.stdin.end();
    await new Promise((r) => setTimeout(r, 2000));
    if (pi.exitCode === null) pi.kill();
  }
  await model.close();
}
if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log("all checks passed");

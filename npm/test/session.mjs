// The open() API against a real vfsctl: node session.mjs WORKSPACE (empty folder).
import { open } from "vfsctl";
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { binaryPath } from "vfsctl";

const ws = process.argv[2];
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exitCode = 1;
};

// close() with calls in flight: each call is answered by its reply, none is told it
// may not have landed.
{
  const n = 20;
  for (let i = 1; i <= n; i++) writeFileSync(`${ws}/f${i}.txt`, `value ${i}\n`);
  const s = open({ root: ws, session: "close-test" });
  const ps = [];
  for (let i = 1; i <= n; i++) {
    ps.push(s.call("edit_file", { path: `f${i}.txt`, edits: [{ oldText: `value ${i}`, newText: `changed ${i}` }] }, { turn: "t1" }));
  }
  const closing = s.close();
  const got = await Promise.allSettled(ps);
  await closing;
  const bad = got.filter((g) => g.status !== "fulfilled" || !g.value.ok || typeof g.value.txn !== "number");
  if (bad.length) fail(`close() with ${n} calls in flight: ${bad.length} not answered ok: ${JSON.stringify(bad[0].reason?.message ?? bad[0].value)}`);
  for (let i = 1; i <= n; i++) {
    if (readFileSync(`${ws}/f${i}.txt`, "utf8") !== `changed ${i}\n`) fail(`f${i}.txt not changed`);
  }
  const after = await s.call("read_file", { path: "f1.txt" }).then(() => "ran", (e) => e.message);
  if (!after.includes("closed")) fail(`a call after close(): ${after}`);
}

// open() without a session: one session for the open(), kept when its process is
// restarted, and told to the caller.
{
  writeFileSync(`${ws}/a.txt`, "v1\n");
  const s = open({ root: ws, tools: "native,shell" });
  if (typeof s.session !== "string" || !s.session) fail(`open() without a session has session ${JSON.stringify(s.session)}`);
  const r = await s.call("read_file", { path: "a.txt" });
  if (!r.ok) fail(`read_file: ${r.text}`);
  // The process dies (as after an out-of-memory kill); the next call starts another.
  const died = await s.call("run_command", { command: "kill -9 $PPID" }).then(() => "answered", (e) => e.message);
  if (!died.includes("killed")) fail(`run_command that kills vfsctl: ${died}`);
  const w = await s.call("write_file", { path: "a.txt", content: "v2\n" });
  if (!w.ok) fail(`write_file after a restart, in the same session as its read: ${w.kind}: ${w.text}`);
  await s.close();
  const log = execFileSync(binaryPath(), ["log", "--root", ws, "--session", s.session], { encoding: "utf8" });
  if (!log.includes("read_file") || !log.includes("write_file")) fail(`vfsctl log --session ${s.session} lacks the calls:\n${log}`);
}
// open({session: ""}): "" names no session, so one is made for the open(), as
// without one; else each process would make its own and forget the reads.
{
  writeFileSync(`${ws}/e.txt`, "v1\n");
  const s = open({ root: ws, session: "", tools: "native,shell" });
  if (!s.session) fail(`open({session: ""}) has session ${JSON.stringify(s.session)}`);
  if (!(await s.call("read_file", { path: "e.txt" })).ok) fail("read_file e.txt");
  await s.call("run_command", { command: "kill -9 $PPID" }).catch(() => {});
  const w = await s.call("write_file", { path: "e.txt", content: "v2\n" });
  if (!w.ok) fail(`open({session: ""}): write_file after a restart: ${w.kind}: ${w.text}`);
  await s.close();
}

// A process that could not start: its call is told nothing ran, and its late 'close'
// does not fail the call sent to the next process, which runs.
{
  writeFileSync(`${ws}/b.txt`, "b\n");
  const real = binaryPath();
  const saved = process.env.VFSCTL;
  process.env.VFSCTL = `${ws}/no-such-vfsctl`;
  const s = open({ root: ws });
  const first = await s.call("read_file", { path: "b.txt" }).then(() => "ran", (e) => e.message);
  if (!first.includes("Nothing ran")) fail(`a vfsctl that cannot start: ${first}`);
  process.env.VFSCTL = real;
  const second = await s.call("read_file", { path: "b.txt" }).then((r) => (r.ok ? "ok" : r.text), (e) => e.message);
  if (second !== "ok") fail(`the call after a failed start: ${second}`);
  await s.close();
  if (saved === undefined) delete process.env.VFSCTL;
  else process.env.VFSCTL = saved;
}
if (!process.exitCode) console.log("ok: close() with calls in flight; open() keeps its session across a restart");

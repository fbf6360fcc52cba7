// Alternates one-line edit_file calls between vfsctl serve (one or more builds) and
// the MCP filesystem server, each a child process spoken to by the TypeScript SDK's
// client over stdio, one connection each, every reply awaited before the next call.
// Prints each server's quartiles and its median over the filesystem server's.
//
//   npm ci && node bench.mjs [--durability file|journal] [--n 200] [--dir DIR] VFSCTL...
//
// VFSCTL is a path to a vfsctl binary, or NAME=PATH to label it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const opts = { durability: "file", n: "200", dir: os.tmpdir() };
const bins = [];
for (let a = process.argv.slice(2); a.length; ) {
  const x = a.shift();
  if (x.startsWith("--")) opts[x.slice(2)] = a.shift();
  else bins.push(x.includes("=") ? x.split("=", 2) : [path.basename(x), x]);
}
if (!bins.length) {
  console.error("usage: node bench.mjs [--durability file|journal] [--n 200] [--dir DIR] VFSCTL...");
  process.exit(2);
}
const n = Number(opts.n);

// A 200-line Go file from Go's own sources, and a line of it that occurs once.
const goroot = execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
const src = fs.readFileSync(path.join(goroot, "src/fmt/print.go"), "utf8").split("\n").slice(0, 200).join("\n") + "\n";
const a = src.split("\n").slice(100).find((l) => l.trim().length > 20 && src.split(l).length === 2 && !l.trim().startsWith("//"));
const e = a + " // v2";

async function start(name, command, args, root) {
  const c = new Client({ name: "bench", version: "1" });
  await c.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return { name, c, root, times: [] };
}
const workspace = () => {
  const r = fs.realpathSync(fs.mkdtempSync(path.join(opts.dir, "mcpbench-")));
  fs.writeFileSync(path.join(r, "g.go"), src);
  return r;
};
const require = createRequire(import.meta.url);
const fsServer = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const servers = [];
for (const [name, bin] of bins) {
  const r = workspace();
  servers.push(await start(name, bin, ["serve", "--root", r, "--guard", "off", "--durability", opts.durability], r));
}
const r = workspace();
const ref = await start("server-filesystem", "node", [fsServer, r], r);
servers.push(ref);

// Four rounds untimed, then n; the order of the servers turns with each round.
for (let i = -4; i < n; i++) {
  const [o, w] = i % 2 === 0 ? [a, e] : [e, a];
  for (let k = 0; k < servers.length; k++) {
    const s = servers[(i + 4 + k) % servers.length];
    const p = s === ref ? path.join(s.root, "g.go") : "g.go";
    const t0 = process.hrtime.bigint();
    const res = await s.c.callTool({ name: "edit_file", arguments: { path: p, edits: [{ oldText: o, newText: w }] } });
    const dt = Number(process.hrtime.bigint() - t0) / 1e3;
    if (res.isError) throw new Error(s.name + ": " + JSON.stringify(res.content));
    if (i >= 0) s.times.push(dt);
  }
}
const q = (t, f) => t[Math.floor(f * (t.length - 1))];
for (const s of servers) s.times.sort((x, y) => x - y);
const refMedian = q(ref.times, 0.5);
console.log(`${n} edits each, durability ${opts.durability}`);
for (const s of servers) {
  const t = s.times;
  console.log(`${s.name.padEnd(20)} p25 ${q(t, 0.25).toFixed(0)}us  p50 ${q(t, 0.5).toFixed(0)}us  p75 ${q(t, 0.75).toFixed(0)}us  x_fs_p50 ${(q(t, 0.5) / refMedian).toFixed(2)}`);
}
for (const s of servers) {
  await s.c.close();
  fs.rmSync(s.root, { recursive: true, force: true });
}

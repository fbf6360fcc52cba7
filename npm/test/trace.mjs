// Each call's trace context goes on its own line: node trace.mjs FOLDER. vfsctl parents
// a call's span by it (the Go tests check the spans); a stand-in vfsctl answers each
// line with the trace context it carried.
import { open } from "vfsctl";
import { writeFileSync, chmodSync } from "node:fs";

const dir = process.argv[2];
const fake = `${dir}/fake-vfsctl.mjs`;
writeFileSync(
  fake,
  `#!${process.execPath}
import { createInterface } from "node:readline";
for await (const line of createInterface({ input: process.stdin })) {
  const got = JSON.parse(line);
  const text = JSON.stringify({ traceparent: got.traceparent ?? null, tracestate: got.tracestate ?? null });
  process.stdout.write(JSON.stringify({ id: got.id, ok: true, kind: null, tool: got.tool, txn: null, text }) + "\\n");
}
`,
);
chmodSync(fake, 0o755);
process.env.VFSCTL = fake;
const tp1 = `00-${"1".repeat(32)}-${"1".repeat(16)}-01`;
const tp2 = `00-${"2".repeat(32)}-${"2".repeat(16)}-01`;
const s = open({ root: dir, session: "trace" });
const got = [
  JSON.parse((await s.call("read_file", { path: "a" }, { traceparent: tp1 })).text),
  JSON.parse((await s.call("read_file", { path: "a" }, { traceparent: tp2, tracestate: "k=v" })).text),
  JSON.parse((await s.call("read_file", { path: "a" })).text),
];
await s.close();
const want = [
  { traceparent: tp1, tracestate: null },
  { traceparent: tp2, tracestate: "k=v" },
  { traceparent: null, tracestate: null },
];
if (JSON.stringify(got) !== JSON.stringify(want)) {
  console.error(`FAIL: the lines carried ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  process.exit(1);
}
console.log("ok: each call's traceparent on its own line");

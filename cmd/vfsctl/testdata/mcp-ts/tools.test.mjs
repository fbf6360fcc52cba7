// Drives `vfsctl serve` with the TypeScript SDK's MCP client, as runtimes built on
// it do: every tool of the native, hashline, udiff and gemini sets that moves,
// deletes, makes folders, reads several files, describes a file, reads a tail,
// lists a tree, edits by anchors, applies a diff or replaces by count, each with at
// least one refusal, checked against the files on disk (read here with node:fs, not
// through vfsctl). Exits non-zero, naming each failed check.
//
//   VFSCTL_MCP_SDK=DIR node tools.test.mjs VFSCTL
//
// DIR holds node_modules/@modelcontextprotocol/sdk (test.sh installs it).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [bin] = process.argv.slice(2);
const sdkDir = process.env.VFSCTL_MCP_SDK;
if (!bin || !sdkDir) {
  console.error("usage: VFSCTL_MCP_SDK=DIR node tools.test.mjs VFSCTL");
  process.exit(2);
}
const esm = (p) => import(pathToFileURL(path.join(sdkDir, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await esm("client/index.js");
const { StdioClientTransport } = await esm("client/stdio.js");

let failed = 0;
const check = (ok, what, detail = "") => {
  if (!ok) {
    failed++;
    console.log(`FAIL ${what}${detail ? ": " + detail : ""}`);
  }
};
const read = (root, p) => {
  try {
    return fs.readFileSync(path.join(root, p), "utf8");
  } catch {
    return null;
  }
};
const exists = (root, p) => fs.existsSync(path.join(root, p));
const ino = (root, p) => fs.statSync(path.join(root, p)).ino;

// One workspace and one server per tool set.
const roots = [];
async function serve(set) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "vfsctl-mcp-ts-")));
  roots.push(root);
  const files = {
    "app.py": 'print("hi")\nx = 1\n',
    "src/a.txt": "alpha\nbeta\n",
    "many.txt": Array.from({ length: 20 }, (_, i) => `line ${String(i).padStart(2, "0")} = old\n`).join(""),
    "full/one.txt": "1\n",
  };
  for (const [p, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), c);
  }
  const client = new Client({ name: "vfsctl-ts-test", version: "1" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["serve", "--root", root, "--tools", set], stderr: "ignore" }));
  const { tools } = await client.listTools();
  // call returns the reply's text, whether it is an error, and its kind.
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    const text = r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    return { text, error: !!r.isError, kind: r.structuredContent?.kind ?? null };
  };
  return { root, client, tools, call };
}

// refused checks a refusal: an error of that kind, and the workspace as it was.
function refused(s, r, kind, what, snapshot) {
  check(r.error && r.kind === kind, `${what} is refused as ${kind}`, `${r.kind}: ${r.text}`);
  for (const [p, c] of Object.entries(snapshot)) {
    check(read(s.root, p) === c, `${what} changed nothing (${p})`, JSON.stringify(read(s.root, p)));
  }
}

// The native set.
{
  const s = await serve("native");
  const hints = Object.fromEntries(s.tools.map((t) => [t.name, t.annotations ?? {}]));
  for (const name of ["move_file", "delete_file"]) check(hints[name].destructiveHint === true && !hints[name].readOnlyHint, `${name} is marked destructive`);
  for (const name of ["read_files", "file_info"]) check(hints[name].readOnlyHint === true, `${name} is marked read-only`);

  // move_file renames: a hard link to the file still shares its inode.
  fs.linkSync(path.join(s.root, "src/a.txt"), path.join(s.root, "a.link"));
  const was = ino(s.root, "src/a.txt");
  let r = await s.call("move_file", { source: "src/a.txt", destination: "lib/deep/b.txt" });
  check(!r.error && r.text.includes("Moved src/a.txt to lib/deep/b.txt"), "move_file", r.text);
  check(!exists(s.root, "src/a.txt") && read(s.root, "lib/deep/b.txt") === "alpha\nbeta\n", "move_file moved the file");
  check(ino(s.root, "lib/deep/b.txt") === was && ino(s.root, "a.link") === was, "move_file kept the inode and its hard link");
  refused(s, await s.call("move_file", { source: "app.py", destination: "many.txt" }), "file_exists", "move_file onto a file", { "app.py": 'print("hi")\nx = 1\n' });
  refused(s, await s.call("move_file", { source: "app.py", destination: "../out.py" }), "path_outside_root", "move_file out of the root", { "app.py": 'print("hi")\nx = 1\n' });
  r = await s.call("undo_edit", { path: "lib/deep/b.txt" });
  check(!r.error && read(s.root, "src/a.txt") === "alpha\nbeta\n" && !exists(s.root, "lib"), "undo of the move", r.text);
  check(ino(s.root, "src/a.txt") === was, "the undo of the move kept the inode");

  // delete_file, and undo puts the file back.
  r = await s.call("delete_file", { path: "app.py" });
  check(!r.error && !exists(s.root, "app.py"), "delete_file", r.text);
  refused(s, await s.call("delete_file", { path: "full" }), "not_a_file", "delete_file of a folder with entries", { "full/one.txt": "1\n" });
  check((await s.call("delete_file", { path: "full" })).text.includes("holds 1 entry"), "the refusal counts the folder's entries");
  r = await s.call("undo_edit", { path: "app.py" });
  check(!r.error && read(s.root, "app.py") === 'print("hi")\nx = 1\n', "undo of the delete", r.text);

  // create_directory: parents made; an existing folder is a success; a file is refused.
  r = await s.call("create_directory", { path: "out/a/b" });
  check(!r.error && fs.statSync(path.join(s.root, "out/a/b")).isDirectory(), "create_directory", r.text);
  r = await s.call("create_directory", { path: "out/a" });
  check(!r.error && r.text.includes("already exists"), "create_directory of an existing folder", r.text);
  refused(s, await s.call("create_directory", { path: "many.txt" }), "file_exists", "create_directory over a file", { "many.txt": read(s.root, "many.txt") });

  // read_files: one missing file does not spoil the others; all missing is an error.
  r = await s.call("read_files", { paths: ["app.py", "none.txt"] });
  check(!r.error && r.text.includes('==> app.py <==\n     1\tprint("hi")') && r.text.includes("(not read: file_not_found)"), "read_files", r.text);
  r = await s.call("read_files", { paths: ["none.txt", "nope.txt"] });
  check(r.error && r.kind === "file_not_found", "read_files of missing files is refused", r.text);

  // file_info of a file and a folder, and of a path that is not there.
  r = await s.call("file_info", { path: "many.txt" });
  check(!r.error && r.text.includes("kind: file\n") && r.text.includes("lines: 20\n") && r.text.includes(`size: ${fs.statSync(path.join(s.root, "many.txt")).size} bytes`), "file_info", r.text);
  r = await s.call("file_info", { path: "full" });
  check(!r.error && r.text.includes("kind: folder\nentries: 1\n"), "file_info of a folder", r.text);
  refused(s, await s.call("file_info", { path: "none.txt" }), "file_not_found", "file_info of a missing file", {});

  // read_file's tail: a negative offset reads the last lines.
  r = await s.call("read_file", { path: "many.txt", offset: -2 });
  check(!r.error && r.text.startsWith("    19\tline 18 = old\n    20\tline 19 = old\n"), "read_file with offset -2", r.text);
  refused(s, await s.call("read_file", { path: "many.txt", offset: -2, limit: 0 }), "invalid_input", "read_file with limit 0", {});

  // list_files as a tree with sizes, and a refusal of a format it does not know.
  r = await s.call("list_files", { path: "full", format: "tree", sizes: true });
  check(!r.error && r.text.trim() === "one.txt (2 bytes)", "list_files tree", JSON.stringify(r.text));
  r = await s.call("list_files", { format: "tree" });
  check(!r.error && /^full\/\n  one\.txt$/m.test(r.text) && /^out\/\n  a\/\n    b\/$/m.test(r.text), "list_files tree of the root", r.text);
  refused(s, await s.call("list_files", { format: "xml" }), "invalid_input", "list_files with an unknown format", {});
  await s.client.close();
}

// The hashline set: read with anchors, edit_lines by them.
{
  const s = await serve("hashline");
  let r = await s.call("read_file", { path: "app.py" });
  const anchors = [...r.text.matchAll(/^(\d+:[0-9a-f]{2})\|/gm)].map((m) => m[1]);
  check(!r.error && anchors.length === 2, "read_file shows anchors", r.text);
  const wrong = anchors[1]?.endsWith("00") ? "2:01" : "2:00";
  refused(s, await s.call("edit_lines", { path: "app.py", edits: [{ op: "replace", start: wrong, lines: ["x = 2"] }] }), "invalid_input", "edit_lines with a wrong hash", { "app.py": 'print("hi")\nx = 1\n' });
  r = await s.call("edit_lines", { path: "app.py", edits: [{ op: "replace", start: wrong, lines: ["x = 2"] }] });
  check(r.text.includes(`that line's anchor is ${anchors[1]}`), "the refusal names the line's real anchor", r.text);
  r = await s.call("edit_lines", { path: "app.py", edits: [{ op: "replace", start: anchors[1], lines: ["x = 2"] }, { op: "insert_before", start: anchors[0], lines: ["import sys"] }] });
  check(!r.error && read(s.root, "app.py") === 'import sys\nprint("hi")\nx = 2\n', "edit_lines", r.text);
  // The same anchors again: line 2 changed since, so its edit is a conflict.
  refused(s, await s.call("edit_lines", { path: "app.py", edits: [{ op: "delete", start: anchors[1] }] }), "conflict", "edit_lines on a line changed since", { "app.py": 'import sys\nprint("hi")\nx = 2\n' });
  await s.client.close();
}

// The udiff set: apply_diff, all or nothing.
{
  const s = await serve("udiff");
  const many = read(s.root, "many.txt");
  refused(s, await s.call("apply_diff", { diff: '--- a/many.txt\n+++ b/many.txt\n@@ ... @@\n-line 03 = old\n+line 03 = new\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print("bye")\n+print(1)\n' }), "text_not_found", "apply_diff with a hunk not found", { "many.txt": many, "app.py": 'print("hi")\nx = 1\n' });
  let r = await s.call("apply_diff", { diff: "--- a/many.txt\n+++ b/many.txt\n@@ -4,1 +4,1 @@\n-line 03 = old\n+line 03 = new\n--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+# New\n" });
  check(!r.error && read(s.root, "many.txt") === many.replace("line 03 = old", "line 03 = new") && read(s.root, "docs/new.md") === "# New\n", "apply_diff", r.text);
  // A rename without hunks renames the file: the same inode.
  const was = ino(s.root, "src/a.txt");
  r = await s.call("apply_diff", { diff: "diff --git a/src/a.txt b/src/b.txt\nsimilarity index 100%\nrename from src/a.txt\nrename to src/b.txt\n" });
  check(!r.error && !exists(s.root, "src/a.txt") && read(s.root, "src/b.txt") === "alpha\nbeta\n" && ino(s.root, "src/b.txt") === was, "apply_diff's rename", r.text);
  await s.client.close();
}

// The gemini set: replace with expected_replacements.
{
  const s = await serve("gemini");
  const many = read(s.root, "many.txt");
  refused(s, await s.call("replace", { file_path: "many.txt", old_string: "= old", new_string: "= new", expected_replacements: 19 }), "multiple_matches", "replace with a wrong count", { "many.txt": many });
  let r = await s.call("replace", { file_path: "many.txt", old_string: "= old", new_string: "= new", expected_replacements: 19 });
  check(r.text.includes("but found 20"), "the refusal names the count found", r.text);
  r = await s.call("replace", { file_path: "many.txt", old_string: "= old", new_string: "= new", expected_replacements: 20 });
  check(!r.error && read(s.root, "many.txt") === many.replaceAll("= old", "= new"), "replace", r.text);
  refused(s, await s.call("replace", { file_path: "app.py", old_string: "nowhere", new_string: "x" }), "text_not_found", "replace of text not there", { "app.py": 'print("hi")\nx = 1\n' });
  await s.client.close();
}

for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
if (failed) {
  console.log(`${failed} checks failed`);
  process.exit(1);
}
console.log("all checks passed");

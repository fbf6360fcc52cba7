#!/usr/bin/env node
// Runs the vfsctl binary that npm installed for this platform, passing arguments,
// standard streams, signals and the exit status through.
import { spawn } from "node:child_process";
import { binaryPath } from "../lib/index.js";

let bin;
try {
  bin = binaryPath();
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(127);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (e) => {
  process.stderr.write(`vfsctl: cannot run ${bin}: ${e.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});

// Checks one unpacked platform package of vfsctl: its package.json names the right
// os and cpu, its binaries are executables of that system and processor (read from
// their headers), and the launcher package depends on it and can pick it.
// Usage: node check-package.mjs <package dir> <platform, e.g. darwin-arm64> <launcher dir>
import { readFileSync, statSync, existsSync } from "node:fs";

const [dir, platform, launcher] = process.argv.slice(2);
const [os, cpu] = platform.split("-");
const fail = (msg) => {
  console.error(`@vfsctl/${platform}: ${msg}`);
  process.exit(1);
};

const pkg = JSON.parse(readFileSync(`${dir}/package.json`, "utf8"));
if (pkg.name !== `@vfsctl/${platform}`) fail(`named ${pkg.name}`);
if (JSON.stringify(pkg.os) !== JSON.stringify([os])) fail(`os is ${JSON.stringify(pkg.os)}, not ["${os}"]`);
if (JSON.stringify(pkg.cpu) !== JSON.stringify([cpu])) fail(`cpu is ${JSON.stringify(pkg.cpu)}, not ["${cpu}"]`);

// What an executable's header says it runs on, as "os-cpu" in Node's names.
function kindOf(path) {
  const b = readFileSync(path);
  if (b.length < 64) return "too short";
  if (b.readUInt32BE(0) === 0x7f454c46) {
    // ELF, 64-bit little-endian expected; e_machine at 18.
    const machine = { 0x3e: "x64", 0xb7: "arm64" }[b.readUInt16LE(18)] ?? `machine ${b.readUInt16LE(18)}`;
    return `linux-${machine}`;
  }
  if (b.readUInt32LE(0) === 0xfeedfacf) {
    // Mach-O 64-bit; cputype at 4.
    const t = b.readUInt32LE(4);
    const machine = { 0x01000007: "x64", 0x0100000c: "arm64" }[t] ?? `cputype ${t.toString(16)}`;
    return `darwin-${machine}`;
  }
  if (b.toString("latin1", 0, 2) === "MZ") {
    // PE: the offset of "PE\0\0" at 0x3c, then the machine.
    const pe = b.readUInt32LE(0x3c);
    if (b.readUInt32BE(pe) !== 0x50450000) return "not a PE file";
    const machine = { 0x8664: "x64", 0xaa64: "arm64" }[b.readUInt16LE(pe + 4)] ?? "unknown machine";
    return `win32-${machine}`;
  }
  return "not an executable";
}

const bins = os === "win32" ? ["vfsctl.exe"] : ["vfsctl"];
if (platform === "linux-x64") bins.push("vfsctl-nocgo");
for (const name of bins) {
  const path = `${dir}/bin/${name}`;
  if (!existsSync(path)) fail(`bin/${name} is missing`);
  const kind = kindOf(path);
  if (kind !== platform) fail(`bin/${name} is ${kind}, not ${platform}`);
  if (os !== "win32" && (statSync(path).mode & 0o111) === 0) fail(`bin/${name} is not executable`);
}

const main = JSON.parse(readFileSync(`${launcher}/package.json`, "utf8"));
if (main.optionalDependencies?.[`@vfsctl/${platform}`] !== pkg.version) {
  fail(`the launcher does not depend on it at ${pkg.version}: ${JSON.stringify(main.optionalDependencies)}`);
}
if (!readFileSync(`${launcher}/lib/index.js`, "utf8").includes(`"${platform}": "@vfsctl/${platform}"`)) {
  fail("the launcher's binaryPath does not know it");
}
console.log(`@vfsctl/${platform}: ${bins.map((b) => `bin/${b}`).join(", ")} ${platform}, os/cpu ${os}/${cpu}`);

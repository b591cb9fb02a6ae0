// The processes a command left running, read from /proc (Linux): for tests
// that stop a script and check that nothing it started is left behind.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";

export type ProcessEntry = { pid: number; command: string };

/** Every process below pid. */
export function descendants(pid: number): ProcessEntry[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we were reading.
    }
  }
  const found: ProcessEntry[] = [];
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = pending.shift()!;
    found.push({ pid: next, command: commandLine(next) });
    pending.push(...(children.get(next) ?? []));
  }
  return found;
}

export function commandLine(pid: number) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

export function isRunning(pid: number) {
  try {
    process.kill(pid, 0);
    return commandLine(pid) !== ""; // a zombie has no command line left
  } catch {
    return false;
  }
}

/** Resolves with the child's exit code once it exits; rejects after timeoutMs. */
export function exitOf(child: ChildProcess, what: string, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export type ScriptRun = { code: number | null; stdout: string; stderr: string };

/** Runs a node script as a child process with the test's environment changed by `env`; resolves when it exits. */
export function runScript(script: string, args: string[], env: Record<string, string>, onStart?: (child: ChildProcess) => void): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    onStart?.(child);
  });
}

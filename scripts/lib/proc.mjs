// Memory and CPU of a process tree, from /proc (Linux). The server may be one
// process today and several tomorrow (a launcher, the web app, an access
// service), so every figure is summed over the tree under the root pid;
// threads share their process's memory and need no counting of their own.

import fs from "node:fs";

/** The root and all its descendants (a scan of /proc: a few ms, so not on every sample). */
export function processTree(rootPid) {
  const parents = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 is the parent; the command name (field 2) may contain spaces, hence ") ".
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(") ") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {} // it exited meanwhile
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** `/proc/<pid>/status` fields in MB (VmRSS, VmHWM…) and the name; null once the process is gone. */
export function procStatus(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
    return { name: /^Name:\s+(.*)$/m.exec(text)?.[1] ?? "?", rssMB: kb("VmRSS") / 1024, hwmMB: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/** User + system CPU seconds of one process (clock ticks of 1/100 s), or null. */
export function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine, all cores, or null. */
export function machineBusySeconds() {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + fields[4]; // idle + iowait
    return (fields.reduce((sum, value) => sum + value, 0) - idle) / 100;
  } catch {
    return null;
  }
}

const round = (mb) => Math.round(mb);

/**
 * Samples the summed RSS of the tree under rootPid every `intervalMs` and
 * keeps the series, so the peak of any stretch of time can be asked for
 * afterwards (peakBetween). resetHighWater() also resets each process's
 * VmHWM (kernel-kept peak, so nothing between two samples is missed):
 * hwmSumMB() is then the sum of the processes' peaks since, an upper bound
 * (their peaks need not coincide), where the sampled peak is a lower one.
 */
export class TreeMemorySampler {
  constructor(rootPid, { intervalMs = 200, rescanMs = 2000 } = {}) {
    this.rootPid = rootPid;
    this.samples = []; // { at: Date.now(), rssMB }
    this.perProcess = new Map(); // pid → { name, peakMB }
    this.tree = processTree(rootPid);
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.rescan = setInterval(() => (this.tree = processTree(rootPid)), rescanMs);
  }

  sample() {
    let sum = 0;
    for (const pid of this.tree) {
      const status = procStatus(pid);
      if (!status) continue;
      sum += status.rssMB;
      const seen = this.perProcess.get(pid);
      if (!seen || status.rssMB > seen.peakMB) this.perProcess.set(pid, { name: status.name, peakMB: status.rssMB });
    }
    this.samples.push({ at: Date.now(), rssMB: sum });
    return sum;
  }

  resetHighWater() {
    this.tree = processTree(this.rootPid);
    for (const pid of this.tree) {
      try {
        fs.writeFileSync(`/proc/${pid}/clear_refs`, "5"); // "5": reset VmHWM to the current RSS
      } catch {} // not ours to reset, or gone
    }
  }

  hwmSumMB() {
    return round(processTree(this.rootPid).reduce((sum, pid) => sum + (procStatus(pid)?.hwmMB ?? 0), 0));
  }

  /** Highest sampled sum between two Date.now() instants (the sample at or before `from` included). */
  peakBetween(from, to = Date.now()) {
    let peak = 0;
    let before = null;
    for (const { at, rssMB } of this.samples) {
      if (at < from) before = rssMB;
      else if (at <= to) peak = Math.max(peak, rssMB);
    }
    return round(Math.max(peak, before ?? 0));
  }

  /** Sampled peak RSS of each process since the sampler started, e.g. { "node 1234": 180 }. */
  breakdown() {
    return Object.fromEntries([...this.perProcess].map(([pid, { name, peakMB }]) => [`${name} ${pid}`, round(peakMB)]));
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.rescan);
  }
}

// Shared by the media-tier benches: CPU time from Linux's /proc, to say what limits a figure (a
// machine whose cores were busy throughout is CPU-bound) and what a process tree cost.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let ticks;
/** Clock ticks per second of /proc's counters (`getconf CLK_TCK`, 100 on Linux in practice). */
function clockTicks() {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** The machine's busy and total CPU ticks since boot (the `cpu` line of /proc/stat). */
function machineTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Starts measuring the whole machine; `end()` answers the fraction of all cores that was busy. */
export function machineBusy() {
  const a = machineTicks();
  return {
    end() {
      const b = machineTicks();
      return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;
    },
  };
}

/**
 * CPU-seconds of a process and of its children it has waited for (user + system, utime + stime +
 * cutime + cstime from /proc/<pid>/stat): a runner and the ffmpeg processes it ran.
 */
export function processTreeCpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // pid (comm) state …: comm may hold spaces, so count fields after its closing parenthesis.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(f[i]));
  return (utime + stime + cutime + cstime) / clockTicks();
}

/**
 * `sh -c` wrapper: runs `cmd args…`, then prints the shell's /proc stat (its cutime/cstime hold the command's CPU).
 * @param {string} cmd @param {string[]} args @returns {[string, string[]]}
 */
export function withChildCpu(cmd, args) {
  return ['sh', ['-c', '"$@" || exit $?; cat /proc/$$/stat', 'sh', cmd, ...args]];
}

/** CPU-seconds of the command run by `withChildCpu`, from its printed stat line. */
export function childCpuSeconds(statLine) {
  const f = statLine.slice(statLine.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / clockTicks();
}

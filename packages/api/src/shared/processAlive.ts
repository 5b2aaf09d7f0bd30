/**
 * Whether a process of this host still runs: signal 0 checks without signalling. EPERM means it
 * runs under another user (alive, not ours to signal); ESRCH that it is gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

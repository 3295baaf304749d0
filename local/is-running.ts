/**
 * Whether a process with this id is running (signal 0 tests without sending anything; EPERM means
 * it runs under another user): how a lock left by a process that died is told from a live one's.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

import { readFileSync } from 'node:fs';

/** Milliseconds per clock tick of `/proc/<pid>/stat` (USER_HZ: 100 on Linux). */
const tickMs = 10;

/** utime plus stime of a `/proc` stat file, in milliseconds (fields 14 and 15 of proc(5), counted after the command name). */
function statMs(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * tickMs;
}

/**
 * The CPU time a process has used, all threads and its main thread alone, in milliseconds; read
 * from `/proc` (Linux, 10 ms resolution), undefined elsewhere. The figure that stays comparable on
 * a shared machine, where rates move with everyone else's load.
 */
export function processCpuMs(pid: number): { totalMs: number; mainThreadMs: number } | undefined {
  try {
    return { totalMs: statMs(`/proc/${pid}/stat`), mainThreadMs: statMs(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return undefined;
  }
}

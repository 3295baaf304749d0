import { spawnSync } from 'node:child_process';

/**
 * What the Python client's tests need of an interpreter: Python 3.9 or later with pytest and venv
 * (with ensurepip, whose pip is 22.3 or later: the install test uses `pip --python`). Nothing to build with: the package carries its own standard-library build
 * backend, so `pip install --no-index ./clients/python` needs neither setuptools nor wheel.
 */
const probe = `
import importlib.util, sys
missing = [name for name in ("pytest", "venv", "ensurepip") if importlib.util.find_spec(name) is None]
if sys.version_info < (3, 9):
    missing.append("Python 3.9 or later")
if "ensurepip" not in missing:
    import ensurepip
    if tuple(int(part) for part in ensurepip.version().split(".")[:2]) < (22, 3):
        missing.append("a venv pip of 22.3 or later (for pip --python)")
print(" ".join(missing))
`;

export const pythonMissingAdvice =
  "The Python client's tests (clients/python) need python3 (3.9 or later) with pytest and venv. " +
  'On Debian: apt-get install python3-venv python3-pytest ' +
  '(test/support/ensure-system-packages.sh does it when it may); elsewhere: pip install pytest. ' +
  'TEMPMAIL_PYTHON names the interpreter to use.';

/**
 * The first interpreter that has what the Python client's tests need: `TEMPMAIL_PYTHON` when set,
 * else `python3` on the PATH, else Debian's `/usr/bin/python3`. Throws, naming what each lacks and
 * what to install, when none has: the tests fail then, they never skip.
 */
export function findPython(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = env.TEMPMAIL_PYTHON ? [env.TEMPMAIL_PYTHON] : ['python3', '/usr/bin/python3'];
  const found: string[] = [];
  for (const candidate of candidates) {
    const run = spawnSync(candidate, ['-c', probe], { encoding: 'utf8', env });
    if (run.error || run.status !== 0) {
      found.push(`${candidate}: not found`);
      continue;
    }
    const missing = run.stdout.trim();
    if (missing === '') return candidate;
    found.push(`${candidate}: lacks ${missing}`);
  }
  throw new Error(`${pythonMissingAdvice}\n${found.join('\n')}`);
}

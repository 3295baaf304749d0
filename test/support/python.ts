import { spawnSync } from 'node:child_process';

/**
 * What the Python client's tests need of an interpreter: Python 3.9 or later with pytest, venv
 * (with ensurepip) and a setuptools that can build a wheel without an index (70.1 or later, or an
 * older one beside the wheel package), since the tests install the package with
 * `pip install --no-build-isolation --no-index`.
 */
const probe = `
import importlib.util, sys
missing = [name for name in ("pytest", "venv", "ensurepip", "setuptools") if importlib.util.find_spec(name) is None]
if "setuptools" not in missing and importlib.util.find_spec("wheel") is None:
    import setuptools
    if tuple(int(part) for part in setuptools.__version__.split(".")[:2]) < (70, 1):
        missing.append("wheel")
if sys.version_info < (3, 9):
    missing.append("Python 3.9 or later")
print(" ".join(missing))
`;

export const pythonMissingAdvice =
  "The Python client's tests (clients/python) need python3 (3.9 or later) with pytest, venv and setuptools able to build a wheel " +
  '(setuptools 70.1 or later, or setuptools and wheel). On Debian: apt-get install python3-venv python3-pytest python3-wheel ' +
  '(test/support/ensure-system-packages.sh does it when it may); elsewhere: pip install pytest wheel. ' +
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

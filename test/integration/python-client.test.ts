import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { TempmailClient, extractCodes, extractLinks, operationMethods, parseFrom } from '../../client/src';
import { findPython } from '../support/python';
import { realClockEnvironment } from '../support/real-clock';
import { runProcess } from '../support/run-process';
import { runAdminCommand, spawnStartCommand, type SpawnedService } from '../support/spawn-service';

/**
 * The Python client (clients/python) beside the TypeScript one: both have a method for every
 * operation of the OpenAPI document, both extract the same codes and links, and the package's own
 * pytest suite passes against `npm start` (its command, without npm, started here once, with an
 * account's key from the operator CLI), the README's Python example in a fresh virtual
 * environment included.
 *
 * Python runs with the real clock while the service keeps the shifted one: under libfaketime
 * Python's `time.sleep` fails (EINVAL), and a client a year away from its service is a fair test
 * of one that must never compare its own clock with the service's.
 */
const projectRoot = join(__dirname, '..', '..');
const packageDir = join(projectRoot, 'clients', 'python');
let python: string;
let service: SpawnedService | undefined;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  python = findPython();
  work = await mkdtemp(join(tmpdir(), 'tempmail-python-'));
  service = await spawnStartCommand({ DATA_DIR: work });
  const account = await runAdminCommand(['account', 'create', '--plan', 'paid'], { DATA_DIR: work });
  expect(account.code).toBe(0);
  env = { TEMPMAIL_API_KEY: JSON.parse(account.stdout).api_key, TEMPMAIL_BASE_URL: service.apiUrl, SMTP_PORT: String(service.smtpPort) };
});
afterAll(async () => {
  await service?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs Python code against the package's source, with `input` on its standard input, and returns what it printed as JSON. */
async function pythonJson(code: string, input = ''): Promise<unknown> {
  const child = spawn(python, ['-c', code], { env: { ...realClockEnvironment(), PYTHONPATH: join(packageDir, 'src') } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  const [status] = await once(child, 'close');
  expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(stdout);
}

describe('the Python client', () => {
  it('and the TypeScript client have a method for every operation of the OpenAPI document, and none other', async () => {
    const document = parse(await readFile(join(projectRoot, 'openapi', 'openapi.yaml'), 'utf8'));
    const operations = Object.values(document.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
      .filter((id): id is string => typeof id === 'string')
      .sort();
    expect(operations).toHaveLength(8);

    expect(Object.keys(operationMethods).sort()).toEqual(operations);
    for (const method of Object.values(operationMethods)) expect(typeof TempmailClient.prototype[method]).toBe('function');

    const fromPython = (await pythonJson(
      'import json, tempmail\n' +
        'client = tempmail.TempmailClient\n' +
        'print(json.dumps({op: callable(getattr(client, name, None)) for op, name in tempmail.OPERATION_METHODS.items()}))',
    )) as Record<string, boolean>;
    expect(Object.keys(fromPython).sort()).toEqual(operations);
    expect(Object.entries(fromPython).filter(([, present]) => !present)).toEqual([]);
  });

  it('extracts the same codes, links and senders as the TypeScript client from generated mails', async () => {
    const piece = fc.constantFrom(
      'Your code: 123456', 'Bestätigungscode', '12.5', '2026-05-01', ' 10:30 ', 'Order #12345678', 'K7QX2M', '\u00a0', '\ufeff', 'código',
      'ſ', '²', '١٢٣٤٥٦', '123 456', '123-456', 'Tel: 5551234', 'https://a.example/reset.', '\n', '<br/>', '<p>', '</td>', '&#x41;',
      '&#99999999999;', '&nbsp;', '&amp;', 'Unsubscribe https://u.example/x', '<a href="https://x.example/verify?a=1&amp;b=2">Verify</a>',
      "<a title=x href='https://x.example/help'>Help</a>", '<style>p{}</style>', '"Doe, Jane" <J@E.com>', 'x@y (Name)', '1234.²',
      'Kodunuz 817246', 'コード 428716', '验证码', '2024', 'A1B2C3D4', 'view in browser', ' ', ':', '-', '#',
    );
    const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
    const mails = fc.sample(fc.record({ subject: text, text: fc.oneof(fc.constant(''), text), html: text }), { seed: 27, numRuns: 2000 });

    const fromPython = (await pythonJson(
      'import json, sys\n' +
        'from tempmail import extract_codes, extract_links, parse_from\n' +
        'print(json.dumps([[extract_codes(m), extract_links(m), list(parse_from(m["subject"]))] for m in json.load(sys.stdin)]))',
      JSON.stringify(mails),
    )) as unknown[];
    const fromTypeScript = mails.map((mail) => {
      const sender = parseFrom(mail.subject);
      return [extractCodes(mail), extractLinks(mail), [sender.name, sender.address]];
    });
    expect(fromPython).toEqual(fromTypeScript);
  });

  /** Runs the package's pytest suite, or a part of it, against the service started above. */
  async function pytest(...args: string[]): Promise<void> {
    const result = await runProcess(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-r', 'fEs', ...args], {
      cwd: packageDir,
      env: { ...realClockEnvironment(), ...env },
    });
    const output = `${result.stdout}${result.stderr}`;
    // On a failure, the whole of pytest's output is what the matcher shows.
    expect(output).toMatch(/^\d+ passed in /m);
    expect(output).not.toMatch(/failed|skipped|xfail|xpass|error|warning/i);
    expect(result.code).toBe(0);
  }

  it("passes the package's pytest suite against npm start: retries and waits on a stand-in, every operation and the extraction live", async () => {
    await pytest('tests', '--ignore=tests/live/test_package.py');
  }, 60_000);

  // Two environments are made (one with pip, whose ensurepip step alone is seconds of processor
  // time) and the package is built and installed into each.
  it("installs as the README prints it, without an index, setuptools or wheel, and the README's Python example passes", async () => {
    await pytest('tests/live/test_package.py');
  }, 120_000);
});

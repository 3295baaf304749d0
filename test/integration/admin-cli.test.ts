import { json } from '../support/json';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdmin } from '../../cli/admin';
import { startTestService } from '../support/local-service';

/** Runs the CLI in-process and captures what it prints. */
async function admin(args: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += chunk), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += chunk), true));
  try {
    const code = await runAdmin(args, env);
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-cli-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

describe('operator CLI against a running local service', () => {
  it('creates accounts and keys, grants, revokes and suspends, as the API then shows', async () => {
    const service = await startTestService({ dataDir });
    const env = { DATA_DIR: dataDir };
    try {
      const created = await admin(['account', 'create', '--plan', 'free'], env);
      expect(created.code).toBe(0);
      const { account_id: accountId, api_key: firstKey } = created.json();

      const second = (await admin(['key', 'create', '--account', accountId], env)).json();
      expect(second).toMatchObject({ account_id: accountId, api_key: expect.stringMatching(/^tm_local_/) });
      expect(second.api_key).not.toBe(firstKey);

      const granted = await admin(['allowance', 'grant', '--account', accountId, '--requests', '50'], env);
      expect(granted.json()).toMatchObject({ account_id: accountId, remaining_requests: 150, additional_requests: 50 });

      expect((await admin(['key', 'revoke', '--key', firstKey], env)).json()).toEqual({ revoked: true });
      expect((await service.request('/v1/usage', { key: firstKey })).status).toBe(401);
      expect((await service.request('/v1/usage', { key: second.api_key })).status).toBe(200);

      expect((await admin(['domain', 'add', 'Fresh.Example.TEST.'], env)).json()).toEqual({
        domain: 'fresh.example.test',
        create_enabled: true,
        receive_enabled: true,
      });
      const listed = (await admin(['domain', 'list'], env)).json();
      expect(listed.data.map((record: { domain: string }) => record.domain)).toEqual(['fresh.example.test', 'tempmail.localhost']);

      await admin(['account', 'suspend', '--account', accountId], env);
      expect((await service.request('/v1/usage', { key: second.api_key })).status).toBe(403);
    } finally {
      await service.close();
    }
  });

  it('binds a key to the environment it was created for', async () => {
    const service = await startTestService({ dataDir });
    try {
      const staging = (await admin(['account', 'create', '--plan', 'paid', '--env', 'staging'], { DATA_DIR: dataDir })).json();
      expect(staging.api_key).toMatch(/^tm_staging_/);
      expect((await service.request('/v1/usage', { key: staging.api_key })).status).toBe(401);
    } finally {
      await service.close();
    }
  });
});

describe('operator CLI with no service running', () => {
  it('opens the data directory itself, and the service later sees what it wrote', async () => {
    const created = await admin(['account', 'create', '--plan', 'paid'], { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const service = await startTestService({ dataDir });
    try {
      const response = await service.request('/v1/usage', { key: created.json().api_key });
      expect((await json(response)).data).toMatchObject({ plan: 'paid', remaining_requests: 10_000 });
    } finally {
      await service.close();
    }
  });

  it.each([
    [['account', 'create'], 2, '--plan is required'],
    [['account', 'create', '--plan', 'gold'], 2, '--plan must be free or paid'],
    [['domain', 'add'], 2, 'domain add needs a NAME'],
    [['frobnicate'], 2, 'Usage: admin'],
    [['account', 'create', '--bogus'], 2, "Unknown option '--bogus'"],
  ])('explains a usage error: %j', async (args, code, message) => {
    const result = await admin(args, { DATA_DIR: dataDir });
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['allowance', 'grant', '--account', 'acc_missing', '--requests', '5'], 'resource_not_found'],
    [['allowance', 'grant', '--account', 'acc_missing', '--requests', '0'], 'invalid_request'],
    [['key', 'revoke', '--key', 'tm_local_nope'], 'resource_not_found'],
    [['account', 'suspend', '--account', 'acc_missing'], 'resource_not_found'],
    [['domain', 'add', 'not a domain'], 'invalid_request'],
    [['account', 'create', '--plan', 'free', '--env', 'Bad_Env'], 'invalid_request'],
  ])('answers a failed command with a JSON error and exit 1: %j', async (args, code) => {
    const result = await admin(args, { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({ error: { code, message: expect.any(String) } });
  });
});

import { json } from '../support/json';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { runAdminCommand, spawnNpmStart, type SpawnedService } from '../support/spawn-service';
import { contractFetch } from '../support/contract';

let dataDir: string;
let service: SpawnedService | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-start-'));
});
afterEach(async () => {
  // A failed test must not leave a service holding the data directory for the next one.
  await service?.stop('SIGKILL');
  service = undefined;
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const get = (url: string, key: string) => contractFetch(url, { headers: { Authorization: `Bearer ${key}` } });

describe('npm start', () => {
  it('serves, stops cleanly on SIGTERM, and keeps its data across a restart', async () => {
    service = await spawnNpmStart({ DATA_DIR: dataDir, TEMPMAIL_DOMAINS: 'mail.example.test,tempmail.localhost' });
    expect(service.output()).toContain('ready');

    const created = await runAdminCommand(['account', 'create', '--plan', 'free'], { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account).toMatchObject({ account_id: expect.stringMatching(/^acc_/), api_key: expect.stringMatching(/^tm_local_/) });

    const domains = await get(`${service.apiUrl}/v1/domains`, account.api_key);
    expect(domains.status).toBe(200);
    expect((await json(domains)).data.map((record: { domain: string }) => record.domain)).toEqual([
      'mail.example.test',
      'tempmail.localhost',
    ]);

    // The local issuer starts with the first request under /oidc: oidc-provider says nothing.
    const discovery = await contractFetch(`${service.apiUrl}/oidc/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(service.output()).not.toContain('oidc-provider');

    const document = await contractFetch(`${service.apiUrl}/openapi.yaml`);
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toBe('application/yaml');
    expect(await document.text()).toMatch(/^openapi: 3\.1\.0$/m);
    // The ready line names the API reference, served beside the document.
    expect(service.output()).toContain(`reference ${service.apiUrl}/docs`);
    const reference = await contractFetch(`${service.apiUrl}/docs`);
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain('<h3 id="op-createEmail-title">');

    await service.stop('SIGTERM');
    expect(service.output()).toContain('tempmail stopping (SIGTERM)');
    expect(service.output()).not.toContain('error');
    expect(service.output()).not.toContain(account.api_key);

    service = await spawnNpmStart({ DATA_DIR: dataDir });
    const usage = await get(`${service.apiUrl}/v1/usage`, account.api_key);
    expect(usage.status).toBe(200);
    expect((await json(usage)).data).toMatchObject({ used_requests: 1, remaining_requests: 99 });
    await service.stop('SIGINT');
    expect(service.output()).toContain('tempmail stopping (SIGINT)');
    service = undefined;
    // Two starts and the operator CLI, each seconds of processor time: more on a shared machine.
  }, 60_000);

  it('stops cleanly on SIGTERM, then on SIGINT, sent to the process npm start created, each time releasing its data directory', async () => {
    service = await spawnNpmStart({ DATA_DIR: dataDir });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      // Only the pid spawn returned, not its process group: what a process manager or CI signals.
      await service.signalProcess(signal);
      expect(service.output()).toContain(`tempmail stopping (${signal})`);
      expect(service.child.exitCode).toBe(0);

      // The data directory is free: the next start is not refused (and, after SIGTERM, takes the SIGINT).
      service = await spawnNpmStart({ DATA_DIR: dataDir });
    }
    await service.stop();
    service = undefined;
    // Three starts, each seconds of processor time: more on a shared machine.
  }, 90_000);

  describe('while it runs', () => {
    // One service for the checks that only need it running: each start is seconds of processor time.
    let running: SpawnedService;
    beforeAll(async () => {
      running = await spawnNpmStart({ DATA_DIR: dataDir });
    });
    afterAll(async () => {
      await running?.stop();
    });

    it('refuses to start a second service on a data directory in use', async () => {
      await expect(spawnNpmStart({ DATA_DIR: dataDir })).rejects.toThrow(/another local service is using/);
    });

    it('listens for SMTP and refuses a recipient it does not hold with 550', async () => {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: running.smtpPort, secure: false, ignoreTLS: true });
      await expect(
        transport.sendMail({ from: 'sender@example.org', to: 'nobody@tempmail.localhost', subject: 'hi', text: 'hello' }),
      ).rejects.toMatchObject({ responseCode: 550 });
      transport.close();
    });
  });
});

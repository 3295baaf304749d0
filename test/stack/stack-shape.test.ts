import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { localTableNames } from '../../lambdas/adapters/dynamodb/table-definitions';
import { createStores } from '../../lambdas/composition/services';
import { openAccount } from '../../lambdas/core/accounts';
import { runningEndpoint } from '../../local/endpoint-file';
import { localConsoleClientId } from '../../local/local-oidc-issuer';
import { ensureCloudAssembly } from '../../local/stack/cloud-assembly';
import { FunctionClock } from '../../local/stack/function-clock';
import { startStack, type StackRuntime } from '../../local/stack/start-stack';
import { startLocal } from '../../local/start-local';
import { memoryLogger } from '../support/memory-logger';
import { publishedSupportContact, readStack, type Template } from '../../local/stack/template';
import { contractFetch } from '../support/contract';
import { json } from '../support/json';
import { testConfig } from '../support/test-config';
import { stackContext, stackDomains } from '../support/stack-context';
import { runAdminCommand, spawnNpmStart } from '../support/spawn-service';
import { signIn } from '../support/oidc-sign-in';
import { sendMail } from '../support/smtp-client';
import { TestClock } from '../support/test-clock';

/**
 * The stack as it deploys (`npm run start:stack`): every function from its bundled asset with its
 * template environment, every AWS call evaluated against its role. The flows a user relies on
 * pass here as they pass against `npm start`, and a grant the code needs cannot go missing.
 */
jest.setTimeout(60_000);

const config = testConfig;
/** The runner's settings without the support contact the suites' synthesis was given (context `supportContact`). */
const { supportContact: synthesizedContact, ...withoutContact } = config;

let cdkOut: string;
let stack: StackRuntime;
/** The function threads' clock: the expiry test moves it past a message's lifetime instead of waiting. */
const clock = new FunctionClock();

beforeAll(async () => {
  // A first synthesis bundles every function (minutes); later runs reuse it while the sources are unchanged.
  cdkOut = await ensureCloudAssembly(stackContext, () => undefined);
  // Started without a support contact of its own: the console's shows the one the template publishes.
  stack = await startStack(withoutContact, { cdkOut, clock });
}, 600_000);
afterAll(() => stack?.close());

const call = (runtime: StackRuntime, path: string, init: { key?: string; token?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  contractFetch(`${runtime.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.key ? { Authorization: `Bearer ${init.key}` } : {}),
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const createEmail = (runtime: StackRuntime, key: string, body: unknown, idempotencyKey = `idem-${randomUUID()}`) =>
  call(runtime, '/v1/emails', { key, method: 'POST', body, headers: { 'Idempotency-Key': idempotencyKey } });

type Page<T> = { data: T[]; pagination: { has_more: boolean; next_cursor?: string } };

async function everyPage<T>(runtime: StackRuntime, path: string, auth: { key?: string; token?: string }, limit?: number): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ ...(limit ? { limit: String(limit) } : {}), ...(cursor ? { cursor } : {}) }).toString();
    const response = await call(runtime, `${path}${query ? `?${query}` : ''}`, auth);
    expect(response.status).toBe(200);
    const page = (await response.json()) as Page<T>;
    pages.push(page);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
  } while (cursor);
  return pages;
}

const consoleSignIn = (runtime: StackRuntime, email: string) =>
  signIn({ issuer: runtime.issuer, clientId: localConsoleClientId, redirectUri: runtime.consoleUrl, email });

describe('npm run start:stack', () => {
  it('prints the ready line of npm start within 60 s, serves with the operator CLI on its DATA_DIR (which adds no domain its receipt rule does not cover), stops cleanly on SIGTERM and SIGINT, and keeps its data', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tempmail-stack-'));
    // The settings the suites' synthesis was made with, under the folder it is in: it finds that
    // assembly made (any other settings would cost a synthesis of their own).
    const environment = {
      DATA_DIR: dataDir,
      TEMPMAIL_STACK_CDK_OUT: dirname(cdkOut),
      TEMPMAIL_DOMAINS: stackDomains.join(','),
      TEMPMAIL_SUPPORT_CONTACT: synthesizedContact!,
      LOG_LEVEL: 'warn',
    };
    let service = await spawnNpmStart(environment, 60_000, 'start:stack');
    try {
      expect(service.output()).toMatch(/tempmail ready: api http:\/\/127\.0\.0\.1:\d+ smtp smtp:\/\/127\.0\.0\.1:\d+ env local domains tempmail\.localhost,mail\.example\.test/);
      const opened = await runAdminCommand(['account', 'create', '--plan', 'free'], { DATA_DIR: dataDir });
      expect(opened.code).toBe(0);
      const account = JSON.parse(opened.stdout) as { api_key: string };
      const domains = await contractFetch(`${service.apiUrl}/v1/domains`, { headers: { Authorization: `Bearer ${account.api_key}` } });
      expect(domains.status).toBe(200);
      expect((await json(domains)).data.map((record: { domain: string }) => record.domain).sort()).toEqual([...stackDomains].sort());

      // A domain the receipt rule does not cover would refuse every mail: the CLI does not add it, and says how to.
      const refused = await runAdminCommand(['domain', 'add', 'late.example.test'], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr).error).toMatchObject({
        code: 'policy_violation',
        message: expect.stringContaining(`TEMPMAIL_DOMAINS=${stackDomains.join(',')},late.example.test npm run start:stack`),
      });
      const listed = await runAdminCommand(['domain', 'list'], { DATA_DIR: dataDir });
      expect(JSON.parse(listed.stdout)).toEqual({
        data: expect.arrayContaining(stackDomains.map((domain) => ({ domain, create_enabled: true, receive_enabled: true, in_receipt_rule: true }))),
        receipt_rule_domains: expect.arrayContaining(stackDomains),
      });
      // Registered in the table anyway (by hand, or by an older CLI): the API neither calls it receiving nor creates on it.
      await createStores({ tableNames: localTableNames(), dynamodbEndpoint: (await runningEndpoint(dataDir))! }).domains.put({
        domain: 'late.example.test',
        createEnabled: true,
        receiveEnabled: true,
      });
      const relisted = await contractFetch(`${service.apiUrl}/v1/domains`, { headers: { Authorization: `Bearer ${account.api_key}` } });
      expect((await json(relisted)).data).toContainEqual({ domain: 'late.example.test', create_enabled: true, receive_enabled: false });
      const created = await contractFetch(`${service.apiUrl}/v1/emails`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${account.api_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `idem-${randomUUID()}` },
        body: JSON.stringify({ domain: 'late.example.test' }),
      });
      expect(created.status).toBe(422);
      expect((await json(created)).error).toMatchObject({ code: 'policy_violation', details: [{ field: 'domain', reason: 'domain_not_allowed' }] });
      await service.stop('SIGTERM');
      expect(service.output()).toContain('tempmail stopping (SIGTERM)');
      expect(service.output()).not.toContain(account.api_key);

      // The data directory was released and kept: the next start serves the same account.
      service = await spawnNpmStart(environment, 60_000, 'start:stack');
      const usage = await contractFetch(`${service.apiUrl}/v1/usage`, { headers: { Authorization: `Bearer ${account.api_key}` } });
      expect(usage.status).toBe(200);
      expect((await json(usage)).data).toMatchObject({ used_requests: 3 });
      // Only the process npm created, as a process manager or CI signals it.
      await service.signalProcess('SIGINT');
      expect(service.output()).toContain('tempmail stopping (SIGINT)');
      expect(service.child.exitCode).toBe(0);
    } finally {
      await service.stop('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
    // Two starts (each may take its 60 s on a loaded machine) and four operator CLI processes.
  }, 150_000);
});

describe('the API from the template', () => {
  it('refuses to start on an API the local gateway does not emulate, naming what', async () => {
    const signedWithIam = (template: Template) => {
      methodOf(template, 'ApicreateEmailFunction').Properties!.AuthorizationType = 'AWS_IAM';
    };
    await expect(startStack(config, { cdkOut, editTemplate: signedWithIam })).rejects.toThrow(/POST \/v1\/emails: AWS_IAM authorization/);
  });

  it("answers a path or method the template does not have with its declared MISSING_AUTHENTICATION_TOKEN response", async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['DELETE', '/v1/domains'],
    ] as const) {
      const response = await call(stack, path, { method });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'resource_not_found', message: 'No such route.', request_id: `req_${response.headers.get('x-amzn-requestid')}` } });
    }
  });

  it("checks a console route's token against the local issuer before its function runs: none or a forged one is the gateway's 401", async () => {
    const before = invocationsOf(stack, 'ApiconsoleGetAccountFunction');
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ email: 'mallory@example.test' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(stack.issuer)
      .setAudience(localConsoleClientId)
      .setSubject('mallory')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    for (const token of [undefined, forged]) await expectGatewayUnauthorized(await call(stack, '/console/v1/account', { token }));
    expect(invocationsOf(stack, 'ApiconsoleGetAccountFunction')).toBe(before);
  });
});

/**
 * One variant of the template for what the synthesized stack declares otherwise, started once: a
 * method removed, a per-method throttle of 1 a second with a burst of 2, the key authorizer cached
 * for 300 s by the Authorization header, and the console's user pool stood in for by an issuer
 * the test signs for (so that it can sign for another client).
 */
describe('the API from a variant of the template', () => {
  let variant: StackRuntime;
  let issuer: TestIssuer;
  const gatewayClock = new TestClock();

  beforeAll(async () => {
    issuer = await startTestIssuer();
    variant = await startStack(
      { ...config, oidc: { issuer: issuer.url, clientId: localConsoleClientId } },
      {
        cdkOut,
        gatewayClock,
        editTemplate: (template) => {
          const [createEmail] = Object.entries(template.Resources).find(([, resource]) => resource === methodOf(template, 'ApicreateEmailFunction'))!;
          delete template.Resources[createEmail];
          const stage = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::ApiGateway::Stage')!;
          (stage.Properties!.MethodSettings as object[]).push({ HttpMethod: 'GET', ResourcePath: '/~1v1~1domains', ThrottlingRateLimit: 1, ThrottlingBurstLimit: 2 });
          const keyAuthorizer = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::ApiGateway::Authorizer' && resource.Properties!.Type === 'REQUEST')!;
          keyAuthorizer.Properties!.IdentitySource = 'method.request.header.Authorization';
          keyAuthorizer.Properties!.AuthorizerResultTtlInSeconds = 300;
        },
      },
    );
  }, 120_000);
  afterAll(async () => {
    await variant?.close();
    await issuer?.close();
  });

  it('serves the methods of the template, not the route table: a route whose method is gone is the gateway\'s 404', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, variant.services);
    // Not the contract's API any more: read without the contract check.
    const response = await fetch(`${variant.apiUrl}/v1/emails`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
    expect([...variant.functions.keys()].filter((id) => id.startsWith('ApicreateEmailFunction'))).toEqual([]);
  });

  it("throttles a method as its stage setting says: 429 in the contract's shape with the gateway's headers, the function not invoked", async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, variant.services);
    const domains = () => call(variant, '/v1/domains', { key: apiKey });
    expect((await domains()).status).toBe(200);
    expect((await domains()).status).toBe(200);
    const ran = invocationsOf(variant, 'ApilistDomainsFunction');
    const throttled = await domains();
    expect(throttled.status).toBe(429);
    expect(Object.fromEntries(['content-type', 'cache-control', 'retry-after', 'x-request-id'].map((name) => [name, throttled.headers.get(name)]))).toEqual({
      'content-type': 'application/json',
      'cache-control': 'private, no-store',
      'retry-after': '1',
      'x-request-id': null,
    });
    expect(await throttled.json()).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: 'Too many requests; slow down.',
        request_id: `req_${throttled.headers.get('x-amzn-requestid')}`,
        details: [{ reason: 'gateway_throttle' }],
      },
    });
    expect(invocationsOf(variant, 'ApilistDomainsFunction')).toBe(ran);
    // A second on the gateway's clock refills one request.
    gatewayClock.advance(1000);
    expect((await domains()).status).toBe(200);
  });

  it('caches the key authorizer by its identity source for its TTL: a missing header is 401 without a call, a cached policy covers only its method', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, variant.services);
    const authorizer = 'ApiAuthorizerFunction';
    const before = invocationsOf(variant, authorizer);
    expect((await call(variant, '/v1/usage', { key: apiKey })).status).toBe(200);
    expect((await call(variant, '/v1/usage', { key: apiKey })).status).toBe(200);
    expect(invocationsOf(variant, authorizer)).toBe(before + 1);
    // The policy the authorizer returned names GET /v1/usage: the gateway denies another method with it.
    const other = await fetch(`${variant.apiUrl}/v1/emails/eml_AAAAAAAAAAAAAAAAAAAAAA`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    await expectGatewayUnauthorized(await fetch(`${variant.apiUrl}/v1/usage`));
    expect(invocationsOf(variant, authorizer)).toBe(before + 1);
    gatewayClock.advance(300_000 + 1000);
    expect((await call(variant, '/v1/usage', { key: apiKey })).status).toBe(200);
    expect(invocationsOf(variant, authorizer)).toBe(before + 2);
  });

  it("lets through only the user pool's ID tokens for its app client: another client, another key, an expired or an access token is the gateway's 401", async () => {
    const account = 'ApiconsoleGetAccountFunction';
    const before = invocationsOf(variant, account);
    const refused = [
      await issuer.sign({ audience: 'another-client' }),
      await issuer.sign({ key: (await generateKeyPair('RS256')).privateKey }),
      await issuer.sign({ expiresAt: Math.floor(Date.now() / 1000) - 60 }),
      await issuer.sign({ claims: { token_use: 'access' } }),
    ];
    for (const token of refused) await expectGatewayUnauthorized(await call(variant, '/console/v1/account', { token }));
    expect(invocationsOf(variant, account)).toBe(before);
    const accepted = await call(variant, '/console/v1/account', { token: await issuer.sign({ claims: { token_use: 'id' } }) });
    expect(accepted.status).toBe(200);
    expect(invocationsOf(variant, account)).toBe(before + 1);
  });
});

describe('the stack shape: API flows', () => {
  it('creates an address, replays the same create, and refuses a taken address with 409', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
    const first = await createEmail(stack, apiKey, { local_part: 'stack-create' }, 'stack-create-0001');
    expect(first.status).toBe(201);
    const created = (await first.json()) as { data: { id: string; address: string } };
    expect(created.data.address).toBe('stack-create@tempmail.localhost');

    const replay = await createEmail(stack, apiKey, { local_part: 'stack-create' }, 'stack-create-0001');
    expect(replay.status).toBe(201);
    expect(((await replay.json()) as typeof created).data.id).toBe(created.data.id);

    const other = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
    const taken = await createEmail(stack, other.apiKey, { local_part: 'stack-create' });
    expect(taken.status).toBe(409);
  });

  it('receives mail over SMTP through the receipt rule, lists it across pages, and serves message, source and attachment', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
    const email = ((await (await createEmail(stack, apiKey, { local_part: 'stack-mail' })).json()) as { data: { id: string; address: string } }).data;
    for (const n of [1, 2, 3]) {
      await sendMail(stack.smtpPort, {
        from: 'sender@example.org',
        to: email.address,
        subject: `stack ${n}`,
        text: `body ${n}`,
        attachments: n === 1 ? [{ filename: 'note.txt', content: 'attached bytes' }] : [],
      });
    }
    // The parser is invoked as an Event: the mail is listed once its invocation has finished.
    await stack.settled();

    const pages = await everyPage<{ id: string; subject: string }>(stack, `/v1/emails/${email.id}/messages`, { key: apiKey }, 2);
    expect(pages).toHaveLength(2);
    const listed = pages.flatMap((page) => page.data);
    expect(listed.map((message) => message.subject).sort()).toEqual(['stack 1', 'stack 2', 'stack 3']);

    const withFile = listed.find((message) => message.subject === 'stack 1')!;
    const read = await call(stack, `/v1/messages/${withFile.id}`, { key: apiKey });
    expect(read.status).toBe(200);
    const message = ((await read.json()) as { data: { text: string; attachments: { id: string; filename: string }[] } }).data;
    expect(message.text).toContain('body 1');
    expect(message.attachments.map((file) => file.filename)).toEqual(['note.txt']);

    const source = await call(stack, `/v1/messages/${withFile.id}/source`, { key: apiKey });
    expect(source.status).toBe(200);
    expect(await source.text()).toContain('Subject: stack 1');

    const attachment = await call(stack, `/v1/messages/${withFile.id}/attachments/${message.attachments[0]!.id}`, { key: apiKey });
    expect(attachment.status).toBe(200);
    expect(await attachment.text()).toBe('attached bytes');
  });

  it('answers 404, not 500, for a message whose stored source was swept a moment before the read', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
    const email = ((await (await createEmail(stack, apiKey, { local_part: 'stack-swept' })).json()) as { data: { id: string; address: string } }).data;
    await sendMail(stack.smtpPort, { from: 'sender@example.org', to: email.address, subject: 'swept', text: 'gone soon' });
    await stack.settled();
    const [listed] = (await everyPage<{ id: string }>(stack, `/v1/emails/${email.id}/messages`, { key: apiKey }))[0]!.data;
    const stored = await stack.services.messages.get(listed!.id);
    // S3 answers a missing key 403 to a role that may not list it: the route must still say 404.
    await stack.blobs.delete(stored!.rawKey);
    const source = await call(stack, `/v1/messages/${listed!.id}/source`, { key: apiKey });
    expect(source.status).toBe(404);
    expect(((await source.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
  });

  it('answers a recipient no receipt rule covers with 550 at RCPT TO', async () => {
    await expect(sendMail(stack.smtpPort, { from: 'a@example.org', to: 'x@not-ours.example', subject: 's', text: 't' })).rejects.toMatchObject({
      responseCode: 550,
    });
  });

  it('counts usage and answers 429 once the free allowance is spent', async () => {
    const { apiKey } = await openAccount({ plan: 'free', env: 'local' }, stack.services);
    const usage = await call(stack, '/v1/usage', { key: apiKey });
    expect(usage.status).toBe(200);
    let status = 200;
    for (let i = 0; i < 101 && status === 200; i++) status = (await call(stack, '/v1/domains', { key: apiKey })).status;
    expect(status).toBe(429);
  });
});

describe('the stack shape: mail at the edges AWS sets', () => {
  it("parses 300,000 nested elements on the parser's first attempt, and reads a mail whose bodies pass Lambda's 6 MB with 200, its bodies cut and marked", async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
    const email = ((await (await createEmail(stack, apiKey, { local_part: 'stack-edges' })).json()) as { data: { id: string; address: string } }).data;
    const parserRuns = invocationsOf(stack, 'InboundMailParser');
    const depth = 300_000;
    await sendMail(stack.smtpPort, {
      from: 'sender@example.org',
      to: email.address,
      subject: 'deep',
      html: `<p>Your code is 482913.</p>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}`,
    });
    // A 7 MB text and 7.5 MB of HTML around a 5 MB inline image: a 14 MB read, were the bodies whole.
    await sendMail(stack.smtpPort, {
      from: 'sender@example.org',
      to: email.address,
      subject: 'huge',
      text: '"quoted" line\n'.repeat(500_000),
      html: `<p>start</p><img src="data:image/png;base64,${'iVBORw0KGgo'.repeat(480_000)}">${'<p>paragraph</p>\n'.repeat(150_000)}`,
    });
    await stack.settled();
    // Each mail took one invocation: none timed out and was retried.
    expect(invocationsOf(stack, 'InboundMailParser')).toBe(parserRuns + 2);

    const listed = (await everyPage<{ id: string; subject: string }>(stack, `/v1/emails/${email.id}/messages`, { key: apiKey })).flatMap((page) => page.data);
    const read = async (subject: string) => {
      const response = await call(stack, `/v1/messages/${listed.find((item) => item.subject === subject)!.id}`, { key: apiKey });
      expect(response.status).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length).toBeLessThan(6_000_000);
      return (JSON.parse(body.toString('utf8')) as { data: { text: string; html: string; source_path: string } }).data;
    };
    const deep = await read('deep');
    expect(deep.text).toContain('482913');
    expect(deep.html.match(/<div>/g)).toHaveLength(512);
    const huge = await read('huge');
    expect(huge.text.endsWith(`[Truncated: the whole message is its source, ${huge.source_path}]`)).toBe(true);
    expect(huge.html).not.toContain('data:');
  }, 180_000);
});

describe('the stack shape: console', () => {
  it("opens the account of a first sign-in, and manages its keys", async () => {
    const token = await consoleSignIn(stack, `first-${randomUUID()}@example.org`);
    const account = await call(stack, '/console/v1/account', { token });
    expect(account.status).toBe(200);
    const created = await call(stack, '/console/v1/keys', { token, method: 'POST', body: { label: 'ci' } });
    expect(created.status).toBe(201);
    const keys = await call(stack, '/console/v1/keys', { token });
    expect(keys.status).toBe(200);
  });

  it('lists an inbox list longer than one page', async () => {
    const token = await consoleSignIn(stack, `many-${randomUUID()}@example.org`);
    const key = (await (await call(stack, '/console/v1/keys', { token, method: 'POST', body: { label: 'many' } })).json()) as { data: { api_key: string } };
    for (let i = 0; i < 21; i++) expect((await createEmail(stack, key.data.api_key, {})).status).toBe(201);
    const pages = await everyPage<{ id: string }>(stack, '/console/v1/emails', { token });
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(pages.flatMap((page) => page.data.map((email) => email.id))).size).toBe(21);
  });
});

// After the console's tests: the functions' clock moves 15 minutes on here, and the issuer's does not.
describe('the stack shape: expiry and sweep', () => {
  it('stops serving a message 15 minutes after receipt, and the scheduled sweeper deletes its files', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
    const email = ((await (await createEmail(stack, apiKey, { local_part: 'stack-expiry' })).json()) as { data: { id: string; address: string } }).data;
    await sendMail(stack.smtpPort, { from: 'sender@example.org', to: email.address, subject: 'expiring', text: 'soon gone', attachments: [{ filename: 'a.txt', content: 'a' }] });
    await stack.settled();
    const [message] = (await everyPage<{ id: string }>(stack, `/v1/emails/${email.id}/messages`, { key: apiKey })).flatMap((page) => page.data);
    expect((await call(stack, `/v1/messages/${message!.id}/source`, { key: apiKey })).status).toBe(200);

    clock.advance(15 * 60 * 1000 + 1000);
    expect((await everyPage(stack, `/v1/emails/${email.id}/messages`, { key: apiKey })).flatMap((page) => page.data)).toEqual([]);
    expect((await call(stack, `/v1/messages/${message!.id}`, { key: apiKey })).status).toBe(404);

    const before = stack.calls.length;
    const [swept] = (await stack.sweep()) as [{ messages: number }];
    expect(swept.messages).toBeGreaterThanOrEqual(1);
    // The sweeper's deletes went through its endpoint and its role allowed them: the parsed files and the raw mail SES stored.
    const deleted = stack.calls.slice(before).filter((evaluated) => evaluated.action === 's3:DeleteObject' && evaluated.decision === 'allowed');
    expect(deleted.map((evaluated) => evaluated.resource)).toEqual(expect.arrayContaining([expect.stringContaining('/mail/'), expect.stringContaining('/inbound/')]));
    expect(await stack.services.messages.get(message!.id)).toBeUndefined();

    // SES stamps a mail received now with the functions' moved time: delivered, not taken for one 15 minutes old.
    await sendMail(stack.smtpPort, { from: 'sender@example.org', to: email.address, subject: 'after the move', text: 'fresh' });
    await stack.settled();
    const fresh = (await everyPage<{ subject: string }>(stack, `/v1/emails/${email.id}/messages`, { key: apiKey })).flatMap((page) => page.data);
    expect(fresh.map((item) => item.subject)).toEqual(['after the move']);
  });
});

describe('the stack shape: IAM', () => {
  it('evaluated every AWS call of every function that ran, and none reached storage around its endpoint', () => {
    expect(stack.calls.length).toBeGreaterThan(0);
    expect(stack.calls.filter((evaluated) => evaluated.decision !== 'allowed')).toEqual([]);
    // The only other place a function may reach: the issuer's keys, which the console functions fetch.
    const issuer = new URL(stack.issuer).host;
    const ran = [...stack.functions.values()].filter((fn) => fn.invocations > 0);
    expect(ran.length).toBeGreaterThan(0);
    for (const fn of ran) {
      const endpoints = Object.entries(fn.environment).filter(([name]) => name.startsWith('AWS_ENDPOINT_URL'));
      expect(new Set(endpoints.map(([, url]) => url)).size).toBe(1);
      const endpoint = new URL(fn.environment.AWS_ENDPOINT_URL!).host;
      // What the function's own thread sent, seen from inside it: every request and connection went
      // to its endpoint (or the issuer), and the endpoint judged as many requests as were sent to it.
      const targets = new Set([...Object.keys(fn.outbound.requests), ...fn.outbound.connections]);
      expect({ function: fn.name, elsewhere: [...targets].filter((target) => target !== endpoint && target !== issuer) }).toEqual({ function: fn.name, elsewhere: [] });
      expect({ function: fn.name, sent: fn.outbound.requests[endpoint] ?? 0 }).toEqual({ function: fn.name, sent: fn.endpointRequests });
      expect({ function: fn.name, evaluated: fn.endpointRequests > 0 && stack.calls.some((evaluated) => evaluated.function === fn.name) }).toEqual({
        function: fn.name,
        evaluated: true,
      });
    }
  });

  it('answers a call its role does not grant as AWS does, logs it, and the request answers 500', async () => {
    let listMessages = '';
    const variant = await startStack(config, {
      cdkOut,
      editTemplate: (template) => {
        listMessages = withoutGrant(template, 'ApilistMessagesFunction', 'dynamodb:Query');
      },
    });
    try {
      const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, variant.services);
      const email = ((await (await createEmail(variant, apiKey, {})).json()) as { data: { id: string } }).data;
      const listed = await call(variant, `/v1/emails/${email.id}/messages`, { key: apiKey });
      expect(listed.status).toBe(500);
      const denied = variant.calls.filter((evaluated) => evaluated.decision === 'denied');
      expect(denied).toEqual([expect.objectContaining({ action: 'dynamodb:Query', function: variant.functions.get(listMessages)!.name })]);
    } finally {
      await variant.close();
    }
  });
});

/**
 * The functions' limits and the parser's dead-letter queue, as the template declares them. Time-outs
 * are wall time: a variant of the template gives the parser a 1 s time-out and the domains route
 * 2 s, and a held call (a stand-in for a service that never answers) makes each exceed it, so
 * nothing races a timer. The variant keeps its data in a directory, as `npm run start:stack`
 * does, so that the operator CLI redrives from it.
 */
describe('the stack shape: time-outs, memory and the dead-letter queue', () => {
  let variant: StackRuntime;
  let dataDir: string;
  let parserId = '';
  let domainsId = '';
  /** The function whose allowed calls wait, and what releases them. */
  let holding: string | undefined;
  let release: () => void = () => undefined;
  let released = Promise.resolve();
  const hold = (logicalId: string) => {
    holding = variant.functions.get(logicalId)!.name;
    released = new Promise((resolve) => (release = resolve));
  };
  const releaseHeld = () => {
    holding = undefined;
    release();
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tempmail-stack-limits-'));
    variant = await startStack(
      { ...config, dataDir },
      {
        cdkOut,
        editTemplate: (template) => {
          parserId = withTimeout(template, 'InboundMailParser', 1);
          domainsId = withTimeout(template, 'ApilistDomainsFunction', 2);
        },
        holdCall: (held) => (held.function === holding ? released : undefined),
      },
    );
  }, 120_000);
  afterAll(async () => {
    releaseHeld();
    await variant?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops an API function at its declared time-out, discards its environment, and the gateway answers 500 in the error shape', async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, variant.services);
    hold(domainsId);
    const started = Date.now();
    const timedOut = await call(variant, '/v1/domains', { key: apiKey });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(timedOut.status).toBe(500);
    expect(timedOut.headers.get('cache-control')).toBe('private, no-store');
    expect(await timedOut.json()).toMatchObject({ error: { code: 'internal_error' } });
    expect(variant.functions.get(domainsId)).toMatchObject({ invocations: 1, environments: 1 });

    releaseHeld();
    const answered = await call(variant, '/v1/domains', { key: apiKey });
    expect(answered.status).toBe(200);
    // The timed-out environment was discarded: the next invocation was a cold start.
    expect(variant.functions.get(domainsId)).toMatchObject({ invocations: 2, environments: 2 });
  });

  it("retries a parser that exceeds its time-out as declared, sends the event to its dead-letter queue with the parser's role, and the operator's redrive delivers it once", async () => {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, variant.services);
    const email = ((await (await createEmail(variant, apiKey, { local_part: 'stack-dead-letter' })).json()) as { data: { id: string; address: string } }).data;
    hold(parserId);
    await sendMail(variant.smtpPort, { from: 'sender@example.org', to: email.address, subject: 'dead-lettered', text: 'redriven' });
    await variant.settled();
    const parser = variant.functions.get(parserId)!;
    // One attempt and the EventInvokeConfig's two retries, each in a new environment after a time-out.
    expect(parser).toMatchObject({ invocations: 3, environments: 3 });
    expect((await everyPage(variant, `/v1/emails/${email.id}/messages`, { key: apiKey })).flatMap((page) => page.data)).toEqual([]);

    const [queueUrl] = Object.values(variant.queues.urls);
    const sqs = new SQSClient({ endpoint: variant.queues.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const receive = () => sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageAttributeNames: ['All'] }));
    try {
      const [letter, ...others] = (await receive()).Messages ?? [];
      expect(others).toEqual([]);
      // As Lambda sends a dead letter: the event unchanged, and why it failed.
      expect(JSON.parse(letter!.Body!)).toMatchObject({ Records: [{ eventSource: 'aws:ses', ses: { receipt: { recipients: [email.address] } } }] });
      expect(letter!.MessageAttributes).toEqual({
        RequestID: { DataType: 'String', StringValue: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        ErrorCode: { DataType: 'Number', StringValue: '200' },
        ErrorMessage: { DataType: 'String', StringValue: 'Task timed out after 1.00 seconds' },
      });
      expect(variant.calls).toContainEqual({ function: parser.name, service: 'sqs', action: 'sqs:SendMessage', resource: expect.stringMatching(/^arn:aws:sqs:/), decision: 'allowed' });

      releaseHeld();
      const redriven = await runAdminCommand(['mail', 'redrive'], { DATA_DIR: dataDir });
      expect({ code: redriven.code, stderr: redriven.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(redriven.stdout)).toEqual({ delivered: 1, expired: 0, failed: 0 });
      const listed = (await everyPage<{ subject: string }>(variant, `/v1/emails/${email.id}/messages`, { key: apiKey })).flatMap((page) => page.data);
      expect(listed.map((message) => message.subject)).toEqual(['dead-lettered']);
      expect((await receive()).Messages ?? []).toEqual([]);
    } finally {
      sqs.destroy();
    }
  });

  // After the cases above, which ran the authorizer, API functions and the parser in the variant.
  it("gave every function that ran the heap Lambda's Node.js runtime gives its declared memory", () => {
    const template = readStack(cdkOut);
    const ran = [...variant.functions].filter(([, fn]) => fn.invocations > 0);
    expect(ran.map(([id]) => id)).toEqual(expect.arrayContaining([expect.stringMatching(/^InboundMailParser/), expect.stringMatching(/^ApiAuthorizer/)]));
    for (const [logicalId, fn] of ran) {
      const memory = Number(template.Resources[logicalId]!.Properties!.MemorySize);
      // The runtime's bootstrap: --max-semi-space-size=memory/10/2, --max-old-space-size=memory - memory/10.
      const newSpace = Math.floor(memory / 10);
      expect({ logicalId, memory: fn.environment.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, heap: fn.resourceLimits }).toEqual({
        logicalId,
        memory: String(memory),
        heap: expect.objectContaining({ maxOldGenerationSizeMb: memory - newSpace, maxYoungGenerationSizeMb: 3 * Math.floor(newSpace / 2) }),
      });
    }
  });

  it("refuses a second local service on the data directory it uses, its own or npm start's (one guard for both)", async () => {
    const inUse = `another local service is using ${dataDir}`;
    await expect(startStack({ ...config, dataDir }, { cdkOut, logger: memoryLogger() })).rejects.toThrow(inUse);
    await expect(startLocal({ ...config, dataDir })).rejects.toThrow(inUse);
  });

  it('warns at start of each setting of npm start the deployed stack has no place for, naming its variables and why', async () => {
    const logger = memoryLogger();
    const given = { ...config, dataDir, supportContact: 'billing@operator.example', shortWindow: { perKey: 5000, perAccount: 9000 } };
    // The start is refused (the variant holds the data directory): the warnings come before anything starts.
    await expect(startStack(given, { cdkOut, logger })).rejects.toThrow('another local service is using');
    // The support contact has its place (the console's published config.json): only the short window is warned of.
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({ message: 'setting not applied by start:stack', variables: 'TEMPMAIL_SHORT_WINDOW_PER_KEY, TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT', reason: expect.stringContaining("contract's short-window limits") }),
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('billing@operator.example');
  });

  it("serves the console the support contact the template publishes in its config.json, not the runner's setting", async () => {
    // The synthesis was given the test configuration's contact (context `supportContact`): the
    // console deployment's config.json asset carries it beside the user pool's markers.
    expect(synthesizedContact).toBeDefined();
    expect(publishedSupportContact(readStack(cdkOut), cdkOut)).toBe(synthesizedContact);
    // The stack runs with no contact of its own (beforeAll): the console shows what was deployed.
    const served = await fetch(`${stack.consoleUrl}config.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ support: synthesizedContact });
  });

  it('let SES store raw mail only as the bucket policy allows it', () => {
    const stored = variant.calls.filter((evaluated) => evaluated.function === 'ses.amazonaws.com');
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((evaluated) => evaluated.action === 's3:PutObject' && evaluated.resource.includes('/inbound/') && evaluated.decision === 'allowed')).toBe(true);
  });
});

/** Gives a function another time-out in the template; returns its logical id. */
function withTimeout(template: Template, functionPrefix: string, seconds: number): string {
  const [functionId, fn] = Object.entries(template.Resources).find(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith(functionPrefix))!;
  fn.Properties!.Timeout = seconds;
  return functionId;
}

/** How often the functions whose logical id starts so were invoked. */
function invocationsOf(runtime: StackRuntime, logicalIdPrefix: string): number {
  return [...runtime.functions].filter(([id]) => id.startsWith(logicalIdPrefix)).reduce((sum, [, fn]) => sum + fn.invocations, 0);
}

/** The method of a route, found through the function its integration names. */
function methodOf(template: Template, functionPrefix: string) {
  return Object.values(template.Resources).find(
    (resource) => resource.Type === 'AWS::ApiGateway::Method' && JSON.stringify(resource.Properties?.Integration?.Uri).includes(`"${functionPrefix}`),
  )!;
}

/** The gateway's UNAUTHORIZED response as the template declares it (its code is the API's `invalid_api_key`, not a function's). */
async function expectGatewayUnauthorized(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get('x-request-id')).toBeNull();
  expect(((await response.json()) as { error: { code: string; request_id: string } }).error).toMatchObject({
    code: 'invalid_api_key',
    request_id: `req_${response.headers.get('x-amzn-requestid')}`,
  });
}

interface TestIssuer {
  url: string;
  sign(options?: { audience?: string; key?: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; expiresAt?: number; claims?: Record<string, unknown> }): Promise<string>;
  close(): Promise<void>;
}

/** An OpenID Connect issuer of the test's own (discovery and keys), standing in for the user pool, whose tokens the test signs. */
async function startTestIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-issuer-key', alg: 'RS256', use: 'sig' };
  let url = '';
  const server = createServer((req, res) => {
    const documents: Record<string, unknown> = { '/.well-known/openid-configuration': { issuer: url, jwks_uri: `${url}/jwks` }, '/jwks': { keys: [jwk] } };
    const document = documents[req.url ?? ''];
    res.writeHead(document ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(document ?? {}));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    sign: (options = {}) =>
      new SignJWT({ email: 'person@example.test', ...options.claims })
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
        .setIssuer(url)
        .setAudience(options.audience ?? localConsoleClientId)
        .setSubject(`person-${randomUUID()}`)
        .setIssuedAt()
        .setExpirationTime(options.expiresAt ?? '1h')
        .sign(options.key ?? privateKey),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Removes one action from every statement of a function's role policies; returns the function's logical id. */
function withoutGrant(template: Template, functionPrefix: string, action: string): string {
  const [functionId, fn] = Object.entries(template.Resources).find(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith(functionPrefix))!;
  const roleId = (fn.Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy' || !JSON.stringify(resource.Properties!.Roles).includes(`"${roleId}"`)) continue;
    for (const statement of resource.Properties!.PolicyDocument.Statement as { Action: string | string[] }[]) {
      statement.Action = ([] as string[]).concat(statement.Action).filter((granted) => granted !== action);
    }
  }
  return functionId;
}

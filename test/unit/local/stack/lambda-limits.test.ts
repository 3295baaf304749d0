import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { FunctionHost } from '../../../../local/stack/function-host';
import { lambdaLimits } from '../../../../local/stack/lambda-limits';
import { eventInvocations } from '../../../../local/stack/event-invocations';
import type { StackFunction } from '../../../../local/stack/template';
import { jsonLogger } from '../../../../lambdas/adapters/json-logger';

/**
 * Lambda's payload limits, crossed through the function host `npm run start:stack` runs each
 * bundled function in: a handler file of the test's own stands in for a bundle (one worker thread
 * per host, started once), so each limit is met exactly, at its byte.
 */

const assetDir = mkdtempSync(join(tmpdir(), 'lambda-limits-'));
writeFileSync(join(assetDir, 'index.js'), '');
writeFileSync(
  join(assetDir, 'handlers.js'),
  `exports.sized = async (event) => 'x'.repeat(event.bytes - 2);
exports.streamed = awslambda.streamifyResponse(async (event, stream) => {
  const chunk = Buffer.alloc(1024 * 1024, 'y');
  for (let i = 0; i < event.chunks; i++) stream.write(chunk);
  stream.end();
});`,
);
// A handler whose init (loading its module) takes 300 ms at least.
writeFileSync(join(assetDir, 'slow-init.js'), `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);\nexports.handler = async () => 'loaded';`);
afterAll(() => rmSync(assetDir, { recursive: true, force: true }));

const stackFunction = (exportName: string, overrides: Partial<StackFunction> = {}): StackFunction => ({
  logicalId: exportName,
  name: `test-${exportName}`,
  arn: `arn:aws:lambda:us-east-1:000000000000:function:test-${exportName}`,
  assetDir,
  file: 'handlers.js',
  exportName,
  environment: {},
  memoryMb: 1024,
  timeoutSeconds: 60,
  role: { policies: [] } as unknown as StackFunction['role'],
  asynchronous: { maximumRetryAttempts: 0, maximumEventAgeSeconds: 60 },
  ...overrides,
});

const hosts: FunctionHost[] = [];
const inits: number[] = [];
const hostOf = (exportName: string) => {
  const host = new FunctionHost(stackFunction(exportName), () => ({}), { onInit: (durationMs) => inits.push(durationMs) });
  hosts.push(host);
  return host;
};
afterAll(() => Promise.all(hosts.map((host) => host.close())));

/** An event whose JSON is exactly `bytes` long. */
const eventOf = (bytes: number) => ({ pad: 'e'.repeat(bytes - '{"pad":""}'.length) });

describe("Lambda's event payload limits, applied before any environment runs", () => {
  it('refuses a RequestResponse event over 6 MB with RequestEntityTooLargeException, as Invoke does', async () => {
    const host = hostOf('sized');
    await expect(host.invoke(eventOf(lambdaLimits.requestResponseEventBytes + 1))).rejects.toMatchObject({
      name: 'RequestEntityTooLargeException',
      statusCode: 413,
      message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
    });
    expect(host.environments).toBe(0);
    expect(host.invocations).toBe(0);
  });

  it('refuses an Event invocation over 1 MB when it is queued, with the size in the message', () => {
    const invocations = eventInvocations({ host: hostOf, deadLetter: async () => undefined, logger: jsonLogger('error', () => undefined) });
    const size = lambdaLimits.eventEventBytes + 1;
    expect(() => invocations.invoke('sized', eventOf(size))).toThrow(`${size} byte payload is too large for the Event invocation type (limit 1048576 bytes)`);
  });
});

describe("Lambda's response payload limits", () => {
  it('passes a buffered response of exactly 6291556 bytes and fails one byte more as Function.ResponseSizeTooLarge', async () => {
    const host = hostOf('sized');
    // An event of just under 6 MB is taken: the limit is on what is over it.
    await expect(host.invoke({ bytes: lambdaLimits.bufferedResponseBytes, pad: 'e'.repeat(lambdaLimits.requestResponseEventBytes - 100) })).resolves.toHaveLength(
      lambdaLimits.bufferedResponseBytes - 2,
    );
    await expect(host.invoke({ bytes: lambdaLimits.bufferedResponseBytes + 1 })).rejects.toMatchObject({
      name: 'Function.ResponseSizeTooLarge',
      message: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
    });
  });

  it('cuts a streamed response at 200 MB: the bytes up to it go out, then the stream fails', async () => {
    const host = hostOf('streamed');
    let received = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done();
      },
    });
    sink.on('error', () => undefined);
    await expect(host.invoke({ chunks: 200 }, sink)).resolves.toBeUndefined();
    expect(received).toBe(lambdaLimits.streamedResponseBytes);
    received = 0;
    const cut = new Writable({ write: (chunk: Buffer, _encoding, done) => ((received += chunk.length), done()) });
    const failed = new Promise<Error>((resolve) => cut.on('error', resolve));
    await expect(host.invoke({ chunks: 201 }, cut)).rejects.toMatchObject({ name: 'Function.ResponseSizeTooLarge' });
    expect((await failed).name).toBe('Function.ResponseSizeTooLarge');
    expect(received).toBe(lambdaLimits.streamedResponseBytes);
  });
});

it("reports each cold start's init duration, as Lambda's REPORT line does, and only the cold start's", async () => {
  const host = hostOf('sized');
  const before = inits.length;
  await host.invoke({ bytes: 4 });
  await host.invoke({ bytes: 4 });
  expect(inits.length - before).toBe(1);
  expect(host.initDurationMs).toBe(inits[inits.length - 1]);
  expect(host.initDurationMs).toBeGreaterThan(0);
});

describe("Lambda's init phase limit, here 100 ms in place of 10 s", () => {
  const slowHost = (timeoutSeconds: number) => {
    const host = new FunctionHost(stackFunction('handler', { file: 'slow-init.js', timeoutSeconds }), () => ({}), { initLimitMs: 100 });
    hosts.push(host);
    return host;
  };

  it('stops an init past its limit and retries it at the invocation, which then runs', async () => {
    const host = slowHost(60);
    await expect(host.invoke({})).resolves.toBe('loaded');
    expect(host.environments).toBe(2);
    // The retried init has no limit of its own: the next invocation reuses its environment.
    await expect(host.invoke({})).resolves.toBe('loaded');
    expect(host.environments).toBe(2);
  });

  it("counts the retried init against the function's time-out: one longer than it is Sandbox.Timedout", async () => {
    const host = slowHost(0.2);
    await expect(host.invoke({})).rejects.toMatchObject({ name: 'Sandbox.Timedout', message: 'Task timed out after 0.20 seconds' });
    expect(host.environments).toBe(2);
  });
});

it('fails an invocation whose environment fails in its init, without starting another', async () => {
  writeFileSync(join(assetDir, 'broken.js'), `throw new Error('broken at load');`);
  const host = new FunctionHost(stackFunction('handler', { file: 'broken.js' }), () => ({}));
  hosts.push(host);
  await expect(host.invoke({})).rejects.toThrow('broken at load');
  expect(host.environments).toBe(1);
});

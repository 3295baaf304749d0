import { AllowanceExhaustedError, RateLimitedError, TempmailClient, TempmailError, TempmailNetworkError } from '../../../client/src';

/** A stand-in transport answering from a script; it records every request. */
function scripted(answers: (() => Response)[]) {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const sleeps: number[] = [];
  const client = new TempmailClient({
    apiKey: 'tm_local_test',
    baseUrl: 'http://127.0.0.1:9/',
    fetch: async (input, init) => {
      requests.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } });
      const answer = answers.shift();
      if (!answer) throw new Error('no more answers scripted');
      return answer();
    },
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    now: () => 0,
  });
  return { client, requests, sleeps };
}

const error = (status: number, code: string, headers: Record<string, string> = {}, details?: { reason: string }[]) => () =>
  new Response(JSON.stringify({ error: { code, message: `${code} happened`, request_id: 'req_0123456789abcdef0123', ...(details ? { details } : {}) } }), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req_0123456789abcdef0123', ...headers },
  });
const usage = () => () =>
  new Response(JSON.stringify({ data: { plan: 'paid', allowance_mode: 'balance', used_requests: 1, remaining_requests: 9, additional_requests: 0 } }), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });
const refused = () => {
  throw new TypeError('fetch failed');
};

describe('client retries', () => {
  it('retries 500 and 503 a bounded number of times with growing full-jitter backoff, honouring Retry-After', async () => {
    const { client, requests, sleeps } = scripted([error(500, 'internal_error'), error(503, 'service_unavailable', { 'Retry-After': '2' }), usage()]);
    expect((await client.getUsage()).plan).toBe('paid');
    expect(requests).toHaveLength(2 + 1);
    expect(sleeps).toEqual([125, 2000 + 250]);
  });

  it('gives up after three retries of a 503 and throws its error', async () => {
    const { client, requests } = scripted(Array.from({ length: 4 }, () => error(503, 'service_unavailable', { 'Retry-After': '1' })));
    const failure = await client.getUsage().catch((caught) => caught);
    expect(failure).toBeInstanceOf(TempmailError);
    expect(failure).toMatchObject({ status: 503, code: 'service_unavailable', requestId: 'req_0123456789abcdef0123' });
    expect(requests).toHaveLength(4);
  });

  it('retries a network failure and reports it as TempmailNetworkError once the retries are spent', async () => {
    const { client, requests } = scripted([refused, refused, refused, refused]);
    await expect(client.getUsage()).rejects.toBeInstanceOf(TempmailNetworkError);
    expect(requests).toHaveLength(4);
  });

  it('keeps one Idempotency-Key across the retries of one create', async () => {
    const created = () =>
      new Response(
        JSON.stringify({
          data: {
            id: 'eml_abcdefghij',
            address: 'a@tempmail.localhost',
            local_part: 'a',
            domain: 'tempmail.localhost',
            status: 'active',
            created_at: '2026-11-22T12:00:00.000Z',
            expires_at: '2026-12-22T12:00:00.000Z',
          },
        }),
        { status: 201, headers: { 'Content-Type': 'application/json' } },
      );
    const { client, requests } = scripted([refused, error(500, 'internal_error'), created]);
    await client.createEmail({ local_part: 'a' });
    const keys = requests.map(({ headers }) => headers['Idempotency-Key']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[\x21-\x7E]{16,255}$/);
  });

  it('stops retrying a short-window 429 after its limit and throws RateLimitedError with the last Retry-After', async () => {
    const limited = error(429, 'rate_limit_exceeded', { 'Retry-After': '7', 'RateLimit-Remaining': '50' });
    const { client, requests, sleeps } = scripted(Array.from({ length: 5 }, () => limited));
    const failure = await client.getUsage().catch((caught) => caught);
    expect(failure).toBeInstanceOf(RateLimitedError);
    expect(failure.retryAfterSeconds).toBe(7);
    expect(requests).toHaveLength(5);
    expect(sleeps).toEqual([7125, 7250, 7500, 8000]);
  });

  it('tells the limit of a 429 from its reason, not its message nor its headers', async () => {
    const exhausted = error(429, 'rate_limit_exceeded', { 'Retry-After': '60', 'RateLimit-Remaining': '3' }, [{ reason: 'allowance_exhausted' }]);
    const first = scripted([exhausted]);
    const used = await first.client.getUsage().catch((caught) => caught);
    expect(used).toBeInstanceOf(AllowanceExhaustedError);
    expect(used.reason).toBe('allowance_exhausted');
    expect(first.requests).toHaveLength(1);

    const window = error(429, 'rate_limit_exceeded', { 'Retry-After': '7', 'RateLimit-Remaining': '0' }, [{ reason: 'short_window_account' }]);
    const second = scripted(Array.from({ length: 5 }, () => window));
    const slow = await second.client.getUsage().catch((caught) => caught);
    expect(slow).toBeInstanceOf(RateLimitedError);
    expect(slow).not.toBeInstanceOf(AllowanceExhaustedError);
    expect(slow.reason).toBe('short_window_account');
    expect(second.requests).toHaveLength(5);
  });

  it.each(['gateway_throttle', 'firewall_throttle'])("reads the %s reason of a 429 made in front of the service and retries it as the short window", async (reason) => {
    // The gateway's or firewall's own 429: Retry-After, no RateLimit-* headers, its reason in the body.
    const throttled = error(429, 'rate_limit_exceeded', { 'Retry-After': '1' }, [{ reason }]);
    const { client, requests } = scripted(Array.from({ length: 5 }, () => throttled));
    const failure = await client.getUsage().catch((caught) => caught);
    expect(failure).toBeInstanceOf(RateLimitedError);
    expect(failure).not.toBeInstanceOf(AllowanceExhaustedError);
    expect(failure.reason).toBe(reason);
    expect(requests).toHaveLength(5);
  });

  it('leaves the reason undefined for a 429 without one and falls back to RateLimit-Remaining', async () => {
    const { client } = scripted([error(429, 'rate_limit_exceeded', { 'Retry-After': '60', 'RateLimit-Remaining': '0' })]);
    const failure = await client.getUsage().catch((caught) => caught);
    expect(failure).toBeInstanceOf(AllowanceExhaustedError);
    expect(failure.reason).toBeUndefined();
  });

  it('never retries other 4xx', async () => {
    const { client, requests } = scripted([error(409, 'address_unavailable')]);
    await expect(client.createEmail({ local_part: 'taken' })).rejects.toMatchObject({ status: 409, code: 'address_unavailable' });
    expect(requests).toHaveLength(1);
  });
});

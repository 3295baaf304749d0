import { allowanceFigures, usageRecord } from '../../../lambdas/core/usage';

describe('usage record', () => {
  it('reports a free lifetime allowance', () => {
    expect(usageRecord({ plan: 'free', allowance: { base: 100, additional: 0, remaining: 58 } })).toEqual({
      plan: 'free',
      allowance_mode: 'lifetime',
      used_requests: 42,
      remaining_requests: 58,
      additional_requests: 0,
    });
  });

  it('reports a paid balance with a granted addition', () => {
    expect(usageRecord({ plan: 'paid', allowance: { base: 10_000, additional: 500, remaining: 10_400 } })).toEqual({
      plan: 'paid',
      allowance_mode: 'balance',
      used_requests: 100,
      remaining_requests: 10_400,
      additional_requests: 500,
    });
  });
});

describe('allowance figures', () => {
  it('reports limit and remaining as integers and the reset as the next UTC month start', () => {
    const figures = allowanceFigures({ base: 100, additional: 20, remaining: 7 }, new Date('2026-12-31T23:59:59Z'));
    expect(figures).toEqual({ limit: 120, remaining: 7, reset: Date.UTC(2027, 0, 1) / 1000 });
  });

  it('never reports a negative remainder', () => {
    expect(allowanceFigures({ base: 100, additional: 0, remaining: -1 }, new Date()).remaining).toBe(0);
  });
});

import { DecisionMemo } from '../../../local/iam/decision-memo';

/** A memo whose evaluations are counted, each deciding `decided` for its input. */
function countedMemo(limit?: number) {
  const memo = new DecisionMemo<string>(limit);
  let evaluations = 0;
  const decide = (input: unknown, decided = 'allowed') =>
    memo.decide(input, async () => {
      evaluations += 1;
      return decided;
    });
  return { memo, decide, evaluations: () => evaluations };
}

describe('DecisionMemo', () => {
  it('evaluates the same input once, however it is built, and concurrent asks share that evaluation', async () => {
    const { decide, evaluations } = countedMemo();
    const request = () => ({ action: 'dynamodb:GetItem', resource: 'arn:aws:dynamodb:eu-west-1:1:table/t', context: { 'aws:SecureTransport': 'true' } });
    await expect(Promise.all([decide(request()), decide(request())])).resolves.toEqual(['allowed', 'allowed']);
    await expect(decide(request())).resolves.toBe('allowed');
    expect(evaluations()).toBe(1);
  });

  it('evaluates afresh for any difference, including those JSON would not show (an undefined field, a Map)', async () => {
    const { decide, evaluations } = countedMemo();
    await decide({ resource: 'a' });
    await decide({ resource: 'b' });
    await decide({ resource: 'a', context: undefined });
    await decide({ resource: new Map([['a', 1]]) });
    await decide({ resource: new Map([['a', 2]]) });
    expect(evaluations()).toBe(5);
  });

  it('evaluates every time an input it cannot key (a function inside), as without the memo', async () => {
    const { decide, evaluations } = countedMemo();
    const input = { resource: 'a', shape: () => undefined };
    await decide(input);
    await decide(input);
    expect(evaluations()).toBe(2);
  });

  it('keeps no failed evaluation: the next ask evaluates again', async () => {
    const memo = new DecisionMemo<string>();
    await expect(memo.decide({ resource: 'a' }, () => Promise.reject(new Error('evaluator failed')))).rejects.toThrow('evaluator failed');
    await expect(memo.decide({ resource: 'a' }, async () => 'allowed')).resolves.toBe('allowed');
  });

  it('holds at most its limit, forgetting the oldest first', async () => {
    const { memo, decide, evaluations } = countedMemo(2);
    await decide('first');
    await decide('second');
    await decide('third');
    expect(memo.size).toBe(2);
    await decide('third');
    expect(evaluations()).toBe(3);
    await decide('first');
    expect(evaluations()).toBe(4);
  });
});

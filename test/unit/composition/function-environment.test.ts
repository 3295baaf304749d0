import { localTableNames, tableNamesFrom } from '../../../lambdas/adapters/dynamodb/table-definitions';
import { readFunctionEnvironment, writeCommonEnvironment } from '../../../lambdas/composition/function-environment';

const common = { stage: 'test', receiptRuleDomains: ['a.example.test', 'b.example.test'], blobBucket: 'test-blobs', tableNames: localTableNames('test') };

describe('the function environment', () => {
  it('is read at cold start exactly as the writers write it', () => {
    const written = writeCommonEnvironment({ ...common, messageTtlSeconds: 60 });
    expect(readFunctionEnvironment(written)).toEqual({
      TEMPMAIL_ENV: 'test',
      LOG_LEVEL: 'info',
      RECEIPT_RULE_DOMAINS: 'a.example.test,b.example.test',
      TEMPMAIL_MESSAGE_TTL_SECONDS: 60,
      BLOB_BUCKET: 'test-blobs',
    });
    expect(tableNamesFrom(written)).toEqual(common.tableNames);
  });

  it('leaves the contract’s lifetimes unwritten unless overridden, and refuses a lifetime that is not whole seconds', () => {
    expect(Object.keys(writeCommonEnvironment(common)).filter((name) => name.includes('TTL'))).toEqual([]);
    expect(() => writeCommonEnvironment({ ...common, emailTtlSeconds: 1.5 })).toThrow('emailTtlSeconds must be a whole number of seconds');
  });

  it('refuses a stage keys cannot be bound to', () => {
    expect(() => readFunctionEnvironment(writeCommonEnvironment({ ...common, stage: 'Not A Stage' }))).toThrow();
  });
});

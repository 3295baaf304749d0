import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import { Api } from './api';
import { Storage } from './storage';

export interface TempmailStackProps extends StackProps {
  /** Stage name; API keys are bound to it. */
  stage: string;
}

/** The whole service in one stack: storage and the API (inbound mail and the sweeper follow). */
export class TempmailStack extends Stack {
  constructor(scope: Construct, id: string, props: TempmailStackProps) {
    super(scope, id, props);
    const storage = new Storage(this, 'Storage');
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'HMAC secret of list cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    const api = new Api(this, 'Api', {
      storage,
      stage: props.stage,
      cursorSecret: cursorSecret.secretValue.unsafeUnwrap(),
    });

    new CfnOutput(this, 'ApiUrl', { value: api.restApi.url });
    for (const key of tableKeys) {
      // Named as the operator CLI reads them from its environment, e.g. API_KEYS_TABLE.
      new CfnOutput(this, tableEnvironmentName(key).replace(/_/g, ''), {
        value: storage.tables[key].tableName,
        description: tableEnvironmentName(key),
      });
    }
  }
}

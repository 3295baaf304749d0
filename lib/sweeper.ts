import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { sesRawPrefix } from '../lambdas/inbound/ses-events';
import { ServiceFunction } from './service-function';
import type { Storage } from './storage';

/** A scheduled run queued longer than this is dropped: the next minute's run has started by then. */
export const sweeperMaxEventAge = Duration.minutes(2);

/**
 * The expiry sweeper, every minute: DynamoDB TTL deletes days late and S3 lifecycle works in
 * whole days, so expired messages and their blobs are deleted here within minutes, and so is raw
 * mail under `inbound/` that a failed ingest left behind. Its deletes are batched (DeleteObjects,
 * BatchWriteItem) and bounded per run; `OldestUnsweptSeconds` says when it falls behind.
 */
export class Sweeper extends Construct {
  readonly sweeperFunction: ServiceFunction;

  constructor(scope: Construct, id: string, props: { storage: Storage; environment: Record<string, string> }) {
    super(scope, id);
    this.sweeperFunction = new ServiceFunction(this, 'Function', {
      entry: join(__dirname, '..', 'lambdas', 'inbound', 'sweeper.ts'),
      environment: props.environment,
      description: 'Deletes expired messages and their blobs',
      // A run stops starting batches 15 s before this and picks up where it stopped a minute later.
      timeout: Duration.seconds(55),
      // Four batches of up to 1,000 keys in flight, each signed and parsed: the CPU that comes with 1 GB.
      memorySize: 1024,
      // The schedule is the retry: a failed or late run is replaced by the next minute's, so
      // Lambda's own retries (twice by default, up to six hours late) would only run beside it.
      options: { retryAttempts: 0, maxEventAge: sweeperMaxEventAge },
    });
    // It reads the expiry index and deletes what it found, 25 items a call: nothing else of the table.
    props.storage.grantItems(this.sweeperFunction, 'messages', 'Query', 'BatchWriteItem');
    props.storage.grantBlobs(this.sweeperFunction, { delete: ['mail/', sesRawPrefix], list: ['mail/', sesRawPrefix] });
    new Rule(this, 'EveryMinute', {
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.sweeperFunction, { retryAttempts: 0 })],
    });
  }
}

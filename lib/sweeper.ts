import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { sweeperFunction, type FunctionDeclaration } from '../lambdas/function-manifest';
import { grantAccess } from './grant-access';
import { declaredCode, ServiceFunction } from './service-function';
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
      ...declaredCode(sweeperFunction),
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
    grantAccess(this.sweeperFunction, sweeperFunction.access, props);
    new Rule(this, 'EveryMinute', {
      schedule: Schedule.rate(Duration.minutes(everyMinutes(sweeperFunction))),
      targets: [new LambdaFunction(this.sweeperFunction, { retryAttempts: 0 })],
    });
  }
}

/** The schedule's period, as the manifest declares it. */
function everyMinutes(declaration: FunctionDeclaration): number {
  if (declaration.trigger.kind !== 'schedule') throw new Error(`${declaration.name} is not scheduled`);
  return declaration.trigger.everyMinutes;
}

import type { Context } from 'aws-lambda';
import { lambdaFunctionServices } from '../composition/lambda-function-services';
import { sweeperFunction } from '../function-manifest';
import { sweepExpired } from '../mail/sweep-expired';

/**
 * What a run leaves for batches still in flight when its deadline passes, before the function's
 * timeout (55 s): a batch of 1,000 deletes takes about a second, more when storage throttles.
 */
const reserveMs = 15_000;

/** Where the last run's look at `inbound/` stopped: kept while this instance stays warm, from the start after a cold one. */
let inboundAfter: string | undefined;

const services = lambdaFunctionServices(sweeperFunction);

/** The scheduled sweeper (every minute in AWS): deletes expired messages and their blobs within the time its invocation has. */
export const handler = async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const deps = services();
  const deadline = new Date(deps.clock.now().getTime() + context.getRemainingTimeInMillis() - reserveMs);
  const result = await sweepExpired(deps, { deadline, inboundAfter });
  inboundAfter = result.inboundAfter;
  return result;
};

import * as z from 'zod/mini';
import { localPartPattern } from '../../core/addresses';
import { normalizeDomain } from '../../core/domains';
import { createEmail, toEmailResource } from '../../core/emails';
import { parseIdempotencyKey } from '../../core/idempotency';
import type { RouteHandler } from '../api-types';
import { createApiHandler } from '../create-api-handler';
import { parseJsonBody } from '../json-body';
import { lambdaServices } from '../../composition/lambda-services';
import { singleHeader } from '../proxy-event';
import { noQuery, parseInput } from '../query';

/** Bodies larger than this are 413 `payload_too_large`, uncharged (DESIGN: gaps). */
export const createBodyMaxBytes = 16 * 1024;

const createEmailBody = z.strictObject({
  local_part: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.toLowerCase(),
        z.minLength(1, 'must be 1 to 64 characters'),
        z.maxLength(64, 'must be 1 to 64 characters'),
        z.regex(localPartPattern, 'may hold only a-z, 0-9, dot, underscore and hyphen, and must start and end with a letter or digit'),
      ),
  ),
  domain: z.optional(z.string().check(z.maxLength(253, 'must be at most 253 characters'))),
});

/** POST /v1/emails: reserves a new address for 30 days, exactly once per Idempotency-Key. */
export const route: RouteHandler = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const body = parseJsonBody(request, createEmailBody, createBodyMaxBytes);
  const idempotencyKey = parseIdempotencyKey(singleHeader(request, 'Idempotency-Key'));
  const domain = body.domain === undefined ? undefined : normalizeDomain(body.domain);
  const { email, replayed } = await createEmail(
    { accountId: request.account.accountId, idempotencyKey, localPart: body.local_part, domain },
    services,
  );
  return {
    status: 201,
    body: { data: toEmailResource(email, services.clock.now()) },
    headers: { Location: `/v1/emails/${email.emailId}`, 'Idempotency-Replayed': String(replayed) },
  };
};

export const handler = createApiHandler(route, lambdaServices);

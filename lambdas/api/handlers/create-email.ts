import * as z from 'zod/mini';
import { localPartPattern } from '../../core/addresses';
import { normalizeDomain } from '../../core/domains';
import { createEmail, findReplay, toEmailResource, type CreateEmailRequest } from '../../core/emails';
import { InvalidRequest } from '../../core/errors';
import type { EmailRecord } from '../../core/ports/email-store';
import { parseIdempotencyKey } from '../../core/idempotency';
import type { ApiRequest, ApiResult, RouteHandler } from '../api-types';
import { parseJsonBody } from '../json-body';
import type { ApiServices } from '../../composition/services';
import { allowanceUsedUp } from '../middlewares/authorizer-decision';
import { singleHeader } from '../proxy-event';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

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
  const { email, replayed } = await createEmail(parseCreateRequest(request), services);
  return created(email, replayed, services);
};

/**
 * POST /v1/emails once the allowance is used up: an exact replay of a completed create is not
 * charged (contract: idempotency rule 2), so the original email is still served. Anything that
 * would be charged (a new create, another body under the key, a refused create's retry, a
 * malformed request) is the 429 the authorizer decided.
 */
export const exhaustedRoute: RouteHandler = async (request, services) => {
  let input: CreateEmailRequest;
  try {
    input = parseCreateRequest(request);
  } catch (error) {
    throw error instanceof InvalidRequest ? allowanceUsedUp() : error;
  }
  const email = await findReplay(input, services);
  if (!email) throw allowanceUsedUp();
  return created(email, true, services);
};

function parseCreateRequest(request: ApiRequest): CreateEmailRequest {
  parseInput(noQuery, request.query, 'query');
  const body = parseJsonBody(request, createEmailBody, createBodyMaxBytes);
  const idempotencyKey = parseIdempotencyKey(singleHeader(request, 'Idempotency-Key'));
  const domain = body.domain === undefined ? undefined : normalizeDomain(body.domain);
  return { accountId: request.account.accountId, idempotencyKey, localPart: body.local_part, domain };
}

function created(email: EmailRecord, replayed: boolean, services: ApiServices): ApiResult {
  return {
    status: 201,
    body: { data: toEmailResource(email, services.clock.now()) },
    headers: { Location: `/v1/emails/${email.emailId}`, 'Idempotency-Replayed': String(replayed) },
  };
}

export const handler = lambdaRoute('createEmail', route, { exhaustedRoute });

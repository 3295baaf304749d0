import * as z from 'zod/mini';
import { createKey } from '../../core/console-keys';
import type { ConsoleRouteHandler } from '../api-types';
import { parseJsonBody } from '../json-body';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

const createKeyBody = z.strictObject({ label: z.string() });
/** A label and its JSON: far below this. */
const maxBodyBytes = 1024;

/**
 * POST /console/v1/keys: a new key with the customer's label. The clear key is in this answer
 * only (`api_key`); the console shows it once. Rate-limited per account.
 */
export const route: ConsoleRouteHandler = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const body = parseJsonBody(request, createKeyBody, maxBodyBytes);
  const created = await createKey(request.account, body.label, services);
  return {
    status: 201,
    body: { data: { ...created.key, api_key: created.apiKey } },
    headers: { Location: `/console/v1/keys/${created.key.id}` },
  };
};

export const handler = lambdaRoute('consoleCreateKey', route);

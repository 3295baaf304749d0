import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { accountForIdentity } from '../core/identities';
import type { ApiEvent, ApiResponse, ConsoleRouteHandler } from './api-types';
import { deadlineReserveMs } from './create-api-handler';
import { errorResponse } from './middlewares/error-response';
import { responseHeaders } from './middlewares/response-headers';
import { requestParts, toProxyResponse } from './proxy-event';
import type { ConsoleServices } from '../composition/services';

const bearerPattern = /^Bearer ([\x21-\x7E]+)$/i;

/**
 * Wraps a console route: the same request ids, error shape and cache headers as `/v1`, never
 * charged. The identity token is verified here, in both runtimes (in AWS the Cognito authorizer
 * checks it first as well), and the signed-in identity's account is found, or opened on the
 * free plan at its first sign-in.
 */
export function createConsoleHandler<S extends ConsoleServices>(route: ConsoleRouteHandler<S>, services: () => S) {
  return middy<ApiEvent, ApiResponse, Error, Context>({ timeoutEarlyInMillis: deadlineReserveMs })
    .use(responseHeaders())
    .use(errorResponse(() => services().logger))
    .handler(async (event) => {
      const deps = services();
      const request = requestParts(event);
      const identity = await deps.identityVerifier.verify(bearerPattern.exec(request.headers.authorization?.trim() ?? '')?.[1]);
      const account = await accountForIdentity(identity, deps);
      return toProxyResponse(await route({ ...request, identity, account }, deps));
    });
}

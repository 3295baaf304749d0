import { createLocalJWKSet } from 'jose';
import { oidcIdentityVerifier } from '../../lambdas/adapters/oidc/identity-token-verifier';
import type { IdentityVerifier } from '../../lambdas/core/ports/identity-verifier';
import type { Clock } from '../../lambdas/core/ports/clock';
import { startApiGateway } from '../api-gateway';
import type { LocalConfig } from '../config';
import { startConsoleFront, type ConsoleFront } from '../console-front';
import { servedApi, userPoolCheck, type ApiBindings, type TemplateApi } from './gateway-template';

export interface StackGateway {
  url: string;
  /** The console's issuer and client, which stand in for the template's user pool and its app client. */
  issuer: string;
  clientId: string;
  close(): Promise<void>;
}

/**
 * API Gateway as the template declares its API, each method served by the function it integrates
 * with, and beside it the console's pages and the local OpenID Connect issuer, as on `npm start`.
 */
export async function startStackGateway(
  api: TemplateApi,
  options: {
    config: Pick<LocalConfig, 'host' | 'port' | 'oidc'>;
    invoke: ApiBindings['invoke'];
    /** The console's and the user pool check's clock (the operator's). */
    clock: Clock;
    /** A test's clock for the throttle buckets and authorizer caches; absent: the system clock. */
    gatewayClock?: Clock;
    /** The support contact the template publishes in the console's `config.json`. */
    support?: string;
  },
): Promise<StackGateway> {
  // The console's issuer stands in for the user pool: known once the front listens.
  let front: ConsoleFront | undefined;
  let userPool: IdentityVerifier | undefined;
  const gateway = await startApiGateway({
    host: options.config.host,
    port: options.config.port,
    api: servedApi(api, { invoke: options.invoke, verifyUserPoolToken: userPoolCheck(() => userPool!) }),
    ...(options.gatewayClock ? { clock: options.gatewayClock } : {}),
    front: (req, res) => (front ? front.handle(req, res) : Promise.resolve(false)),
  });
  front = await startConsoleFront({
    origin: gateway.url,
    clock: options.clock,
    ...(options.config.oidc ? { issuer: options.config.oidc } : {}),
    ...(options.support !== undefined ? { support: options.support } : {}),
  });
  // The user pool's keys are the gateway's own in AWS: its token check never waits on a request
  // to the issuer (one that times out on a loaded machine would answer 500 for a forged token).
  const poolKeys = front.localIssuerKeys;
  userPool = oidcIdentityVerifier(
    { issuer: front.issuer, clientId: front.clientId },
    { clock: options.clock, ...(poolKeys ? { issuerKeys: async () => createLocalJWKSet(await poolKeys()) } : {}) },
  );
  return { url: gateway.url, issuer: front.issuer, clientId: front.clientId, close: () => gateway.close() };
}

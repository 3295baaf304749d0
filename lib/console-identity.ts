import { Aws, Duration, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
  UserPoolDomain,
  UserPoolEmail,
  VerificationEmailStyle,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

export interface ConsoleIdentityProps {
  stage: string;
  /**
   * A domain with a verified SES identity in the stack's Region: Cognito then mails sign-up codes
   * through SES from `no-reply@<domain>` (the SES account's sending quota, which needs SES
   * production access) instead of its default sender, capped at 50 mails a day.
   */
  senderDomain?: string;
}

/**
 * The managed login's domain prefix, unique in the Region across all AWS accounts: the stage and
 * the first 8 hex digits of the stack's random id (its ARN's last part), never the account id,
 * which a prefix shows to everyone who signs in.
 */
export function consoleDomainPrefix(stage: string): string {
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return Fn.join('-', ['tempmail', stage, Fn.select(0, Fn.split('-', stackUuid))]);
}

/**
 * The console's sign-in in AWS: an Amazon Cognito user pool with self sign-up, email verification
 * by Cognito, managed login, and a public client for the authorization code flow with PKCE. The
 * console and the console API know it only as an OpenID Connect issuer and a client id.
 */
export class ConsoleIdentity extends Construct {
  readonly userPool: UserPool;
  readonly domain: UserPoolDomain;
  /** The issuer identifier its ID tokens carry in `iss`. */
  readonly issuer: string;

  constructor(scope: Construct, id: string, props: ConsoleIdentityProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `tempmail-${props.stage}-console`,
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      autoVerify: { email: true },
      userVerification: { emailStyle: VerificationEmailStyle.CODE },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: { minLength: 12, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      ...(props.senderDomain
        ? {
            email: UserPoolEmail.withSES({
              fromEmail: `no-reply@${props.senderDomain}`,
              fromName: 'tempmail',
              sesVerifiedDomain: props.senderDomain,
            }),
          }
        : {}),
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.domain = this.userPool.addDomain('ManagedLogin', {
      cognitoDomain: { domainPrefix: consoleDomainPrefix(props.stage) },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    this.issuer = this.userPool.userPoolProviderUrl;

    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason: 'MFA is optional (TOTP): a customer of a free test-inbox plan chooses it; keys, not sessions, reach mail.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason: 'Threat protection needs the Plus feature plan; the deployer may enable it. Sign-in is rate-limited by Cognito.',
      },
    );
  }

  /**
   * The console's public client: authorization code with PKCE, returning to `consoleUrl`, ID
   * tokens of one hour (kept in the page's memory only).
   */
  addConsoleClient(consoleUrl: string): UserPoolClient {
    const client = this.userPool.addClient('ConsoleClient', {
      userPoolClientName: 'console',
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [consoleUrl],
        logoutUrls: [consoleUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
    });
    // Managed login shows a page only for a client with a style; Cognito's own look is enough.
    new CfnManagedLoginBranding(this, 'ManagedLoginBranding', {
      userPoolId: this.userPool.userPoolId,
      clientId: client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    return client;
  }
}

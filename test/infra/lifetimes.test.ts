import { TempmailStack, type TempmailStackProps } from '../../lib/tempmail-stack';
import type { Template } from '../../local/iam';
import { synthesizeTemplate } from '../support/synthesized-template';
import { testApp } from '../support/test-app';

/**
 * The message and reservation lifetimes a stack run on one machine may override (`npm run
 * start:stack` passes its TTL overrides as context): every function that reads the environment
 * carries them, and a deployment that sets none carries none, so the contract's lifetimes hold.
 */
const synthesize = (lifetimes: TempmailStackProps['lifetimes']): Template => {
  const app = testApp();
  const stack = new TempmailStack(app, 'Lifetimes', { stage: 'test', domains: ['mail.example.test'], lifetimes });
  return app.synth().getStackArtifact(stack.artifactId).template as Template;
};

const serviceFunctions = (template: Template) =>
  Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties?.Environment?.Variables?.TEMPMAIL_ENV)
    .map((fn) => fn.Properties!.Environment.Variables as Record<string, unknown>);

let overridden: Template;
// One synthesis for the suite, as test/infra/stack.test.ts does: loading and building the app takes the time.
beforeAll(() => {
  overridden = synthesize({ messageTtlSeconds: 60, emailTtlSeconds: 3600 });
}, 180_000);

describe('lifetimes other than the contract’s', () => {
  it('reach every service function’s environment when the stack is given them', () => {
    const functions = serviceFunctions(overridden);
    expect(functions.length).toBeGreaterThan(10);
    for (const variables of functions) {
      expect(variables).toMatchObject({ TEMPMAIL_MESSAGE_TTL_SECONDS: '60', TEMPMAIL_EMAIL_TTL_SECONDS: '3600' });
    }
  });

  it('are absent from a deployment that sets none', () => {
    for (const variables of serviceFunctions(synthesizeTemplate())) {
      expect(Object.keys(variables)).not.toEqual(expect.arrayContaining(['TEMPMAIL_MESSAGE_TTL_SECONDS']));
      expect(Object.keys(variables)).not.toEqual(expect.arrayContaining(['TEMPMAIL_EMAIL_TTL_SECONDS']));
    }
  });

  it('refuse a lifetime that is not a whole number of seconds (a mistyped context value)', () => {
    expect(() => synthesize({ messageTtlSeconds: Number('15m') })).toThrow(/messageTtlSeconds must be a whole number of seconds/);
    expect(() => synthesize({ emailTtlSeconds: 0 })).toThrow(/emailTtlSeconds must be a whole number of seconds/);
  });
});

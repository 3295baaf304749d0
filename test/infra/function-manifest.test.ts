import { functionEnvironmentNames } from '../../lambdas/composition/function-environment';
import { functionManifest } from '../../lambdas/function-manifest';
import { loadFunctionRoles } from '../../local/iam';
import { checkNaming, synthesizeTemplate } from '../support/synthesized-template';

const roles = [...loadFunctionRoles(synthesizeTemplate(), checkNaming).values()];
/** The deployment's custom-resource function serves CloudFormation, not the service: not in the manifest. */
const serviceRoles = roles.filter((role) => role.entry && !role.entry.startsWith('lambdas/deployment/'));

describe('the function manifest', () => {
  it('is the stack: one function per declaration, built from its entry, and none undeclared', () => {
    expect(serviceRoles.map((role) => role.entry).sort()).toEqual(functionManifest.map((declaration) => declaration.entry).sort());
  });

  it('gives the cursor secret’s ARN to the functions that declare the secret, and to no other', () => {
    const withArn = serviceRoles.filter((role) => functionEnvironmentNames.cursorSecretArn in role.environment).map((role) => role.entry);
    const declared = functionManifest.filter((declaration) => declaration.access.secrets?.includes('cursor')).map((declaration) => declaration.entry);
    expect(withArn.sort()).toEqual(declared.sort());
    expect(declared).toHaveLength(3);
  });

  it('grants each function the tables and actions it declares, and no action it does not', () => {
    for (const declaration of functionManifest) {
      const role = serviceRoles.find((candidate) => candidate.entry === declaration.entry)!;
      const granted = new Set(
        role.policies.flatMap((policy) => [policy.document.Statement].flat()).flatMap((statement) => [statement.Action as string | string[]].flat()),
      );
      const dynamodbActions = [...granted].filter((action) => action.startsWith('dynamodb:')).sort();
      const declared = [...new Set(Object.values(declaration.access.tables).flat().map((action) => `dynamodb:${action}`))].sort();
      expect({ entry: declaration.entry, actions: dynamodbActions }).toEqual({ entry: declaration.entry, actions: declared });
    }
  });
});

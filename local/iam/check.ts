import { callFromCommand } from './commands';
import { evaluate } from './evaluate';
import type { RecordedCall } from './recording';
import type { Naming, Template } from './resolve';
import { loadFunctionRoles, type FunctionRole } from './roles';

export interface PermissionReport {
  /** Each denied or unmappable call, and each function with no recorded call: `function: what`. */
  problems: string[];
  /** How many (function, IAM request) pairs were evaluated, and allowed. */
  allowed: number;
  /** Recorded calls sent outside any function (the operator CLI, local set-up): not judged. */
  outsideFunctions: number;
}

/** A function the service declares (lambdas/function-manifest.ts): its name and the source it is bundled from. */
export interface DeclaredFunction {
  name: string;
  entry: string;
}

/**
 * Judges every recorded call against the synthesized role of the function whose source sent it,
 * and requires every function to have sent at least one recorded call. Which functions there are
 * is the manifest's to say (`declared`): each must be a function of the template, built from its
 * entry (the template's `tempmail:entry` metadata), whose role is what a call is judged against.
 * A function the template builds from a source the manifest does not declare (a deployment's
 * custom resource) is held to the same rule under its logical id.
 */
export async function checkPermissions(template: Template, calls: RecordedCall[], naming: Naming, declared: readonly DeclaredFunction[]): Promise<PermissionReport> {
  const roles = [...loadFunctionRoles(template, naming).values()];
  const byEntry = new Map<string, FunctionRole[]>();
  for (const role of roles) if (role.entry) byEntry.set(role.entry, [...(byEntry.get(role.entry) ?? []), role]);
  const problems = new Set<string>();
  for (const fn of declared) {
    if (!byEntry.has(fn.entry)) problems.add(`${fn.name}: declared in the manifest, but no function of the template is built from ${fn.entry}`);
  }
  const called = new Set<string>();
  let allowed = 0;
  let outsideFunctions = 0;
  for (const call of calls) {
    if (!call.entry) {
      outsideFunctions += 1;
      continue;
    }
    const functions = byEntry.get(call.entry);
    if (!functions) {
      problems.add(`${call.entry}: sent ${call.service} ${call.command}, but no function of the template is built from it`);
      continue;
    }
    for (const role of functions) {
      called.add(role.functionLogicalId);
      const input = withEnvironment(call.input, role.environment);
      if ('missing' in input) {
        problems.add(`${role.functionLogicalId}: ${call.service} ${call.command} needs ${input.missing}, which its environment lacks`);
        continue;
      }
      const mapped = callFromCommand(call.service, call.command, input.value, role.naming);
      if (mapped.kind === 'unmappable') {
        problems.add(`${role.functionLogicalId}: unmappable: ${mapped.reason}`);
        continue;
      }
      for (const request of mapped.requests) {
        const decision = await evaluate(role, request);
        if (decision.result === 'allowed') allowed += 1;
        else problems.add(`${role.functionLogicalId}: ${decision.result}: ${decision.reason}`);
      }
    }
  }
  const declaredEntries = new Map(declared.map((fn) => [fn.entry, fn.name]));
  for (const role of roles) {
    if (role.entry && !called.has(role.functionLogicalId)) {
      const name = declaredEntries.get(role.entry) ?? role.functionLogicalId;
      problems.add(`${name}: no call recorded from ${role.entry}: its permissions were not checked`);
    }
  }
  return { problems: [...problems].sort(), allowed, outsideFunctions };
}

/** Puts the function's value of each `${VARIABLE}` into a recorded input. */
function withEnvironment(input: unknown, environment: Record<string, string>): { value: Record<string, unknown> } | { missing: string } {
  let missing: string | undefined;
  const text = JSON.stringify(input).replace(/\$\{([A-Z0-9_]+)\}/g, (_match, name: string) => {
    const value = environment[name];
    if (value === undefined) missing ??= name;
    return JSON.stringify(value ?? '').slice(1, -1);
  });
  return missing ? { missing } : { value: JSON.parse(text) };
}

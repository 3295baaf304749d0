import type { StackFunction } from './template';

/** What the IAM evaluator says of one call: allowed, denied, or not mappable (a failure, never a pass). */
export type Decision = 'allowed' | 'denied' | 'unmappable';

/**
 * Evaluates one AWS call of a function against its synthesized role policies. The endpoints
 * depend on this shape only; the implementation is the project's IAM evaluation module.
 */
export interface CallEvaluator {
  evaluate(fn: StackFunction, action: string, resource: string, context: Record<string, string>): Promise<Decision> | Decision;
}

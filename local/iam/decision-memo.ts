import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';

/**
 * Remembers the decisions of IAM evaluations by the whole of what decides them: the caller, its
 * policies' documents, the resource's policy and the request (action, resource, context), all by
 * content. An evaluation is a pure function of these, so the same request against the same
 * policies gets the same decision; a policy edited in place, or any other difference, is another
 * key and is evaluated afresh. The local stack judges every AWS call of every function, and the
 * calls of one route repeat (the same table, the same action, the same role): evaluating each one
 * cost several milliseconds of simulation, the largest share of a request through the stack.
 *
 * Concurrent evaluations of one key share one promise. The memo is bounded (`limit` keys, the
 * oldest forgotten first), as the keys of objects under ever new names would otherwise grow with
 * every mail a long-running stack receives.
 */
export class DecisionMemo<T> {
  private readonly decisions = new Map<string, Promise<T>>();

  constructor(private readonly limit = 10_000) {}

  /**
   * The decision for `input` (every value that decides it), evaluated by `evaluate` once. The key
   * is the input's structured-clone serialization, which tells apart what JSON would merge (an
   * undefined field, a Map, a cycle: an authorizer's policy is the function's to shape); an input
   * it cannot serialize is evaluated every time, as it would be without the memo.
   */
  decide(input: unknown, evaluate: () => Promise<T>): Promise<T> {
    let key: string;
    try {
      key = createHash('sha256').update(serialize(input)).digest('base64');
    } catch {
      return evaluate();
    }
    const known = this.decisions.get(key);
    if (known) return known;
    const decision = evaluate();
    this.decisions.set(key, decision);
    // An evaluation that throws is not a decision: the next call evaluates again.
    decision.catch(() => this.decisions.delete(key));
    if (this.decisions.size > this.limit) this.decisions.delete(this.decisions.keys().next().value!);
    return decision;
  }

  /** How many decisions are held. */
  get size(): number {
    return this.decisions.size;
  }
}

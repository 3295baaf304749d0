/** The two plans of the contract's Limits table. */
export type Plan = 'free' | 'paid';

/** `lifetime`: a free allowance that never renews; `balance`: a paid durable balance. */
export type AllowanceMode = 'lifetime' | 'balance';

export const plans: Record<Plan, { allowance: number; mode: AllowanceMode }> = {
  free: { allowance: 100, mode: 'lifetime' },
  paid: { allowance: 10_000, mode: 'balance' },
};

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(plans, value);
}

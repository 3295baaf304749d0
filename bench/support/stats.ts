/** Order statistics of a sample: the bench reports medians and spreads, never single runs. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Median with the lowest and highest round, as printed in the table: `52.1 (49.8–55.0)`. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export function formatSpread(value: Spread, digits = 1): string {
  return `${value.median.toFixed(digits)} (${value.min.toFixed(digits)}–${value.max.toFixed(digits)})`;
}

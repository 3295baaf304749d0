/**
 * Whom the console names when a customer's allowance runs low or out (an email address or a
 * page): the operator's, from `TEMPMAIL_SUPPORT_CONTACT` on `npm start` and from the context
 * `supportContact` at deploy, published in the console's `config.json`. One rule for both: the
 * console shows it whole, inside one sentence.
 */
export const supportContactMaxLength = 200;

/** Why a support contact cannot be published, or undefined when it can. */
export function supportContactProblem(value: string): string | undefined {
  if (value.trim() === '') return 'is empty';
  if (value.length > supportContactMaxLength) return `is longer than ${supportContactMaxLength} characters`;
  return undefined;
}

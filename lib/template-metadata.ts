/**
 * The template metadata key that carries each function's source entry (relative to the project,
 * e.g. `lambdas/api/handlers/create-email.ts`): tools that read the synthesized template map a
 * handler to its function from it, never from a hand-kept list.
 */
export const entryMetadataKey = 'tempmail:entry';

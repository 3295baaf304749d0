/**
 * Runs a piece of the local runtime's code as the Lambda function bundled from `entry` (the source
 * file the template names for it). The shipped runtime runs the code as it is; the permission
 * check's suites pass a scope that names each recorded AWS call's function (docs/permissions.md),
 * so that no test instrument ships with `npm start`.
 */
export type FunctionScope = <A extends unknown[], R>(entry: string, fn: (...args: A) => R) => (...args: A) => R;

/** The shipped runtime's scope: the code itself, unwrapped. */
export const runAsIs: FunctionScope = (_entry, fn) => fn;

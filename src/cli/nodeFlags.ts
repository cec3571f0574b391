/**
 * Whether Node's command line (`execArgv`) or `NODE_OPTIONS` already names a flag matching
 * `pattern`: pk then keeps the user's choice instead of setting its own.
 */
export function namesNodeFlag(pattern: RegExp, execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((argument) => pattern.test(argument));
}

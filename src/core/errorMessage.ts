/**
 * The message of a thrown value: an `Error`'s own message, anything else as text. One helper for
 * every log line and answer that reports a failure (the extension bundles it: it imports nothing).
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

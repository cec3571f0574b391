import { displayText } from '../core/safeText';

/** Text from a model or a user shown as inline Markdown code: unsafe characters escaped, no backtick to end the span early. */
export function inlineCode(value: string): string {
  return '`' + displayText(value).replace(/`/g, "'") + '`';
}

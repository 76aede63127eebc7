// Values as typed in a condition and as printed for one (`status=error`, `code=200`, `id="200"`): a JSON
// literal when the text parses as one, else the text itself; and back. Light on imports: the descriptor uses it.
import { parseLiteral, toJson, type JsonValue } from './json-value.js';

/** A value as typed: a JSON literal when it parses as one, else the string itself. */
export function literalValue(text: string): JsonValue {
  try {
    return parseLiteral(text);
  } catch {
    return text;
  }
}

/** A value written so that literalValue reads it back: bare text when unambiguous, else JSON ("200", "", null). */
export function valueText(v: JsonValue): string {
  if (typeof v === 'string') {
    const plain = v !== '' && v.trim() === v && !/[\n\r\t]/.test(v) && literalValue(v) === v;
    return plain ? v : JSON.stringify(v);
  }
  return toJson(v);
}


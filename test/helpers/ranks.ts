// The pre-tokenizer pattern stored in a built rank table (dist/ranks), as the tokenizer reads it.
import { readFileSync } from 'node:fs';

export function ranksFilePattern(encoding: string): string {
  const b = readFileSync(new URL(`../../dist/ranks/${encoding}.bin`, import.meta.url));
  return b.toString('utf8', 24, 24 + b.readUInt32LE(20));
}

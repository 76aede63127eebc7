// The kinds of JSON results: a test run (go test -json, jest --json), a map or a tree (one document whose bulk is
// an object of alike values), else records (JSONL, an array, an envelope's array) or one document.
import type { Header } from '../../format/header.js';
import type { KindFacts } from './types.js';
import { detectMap } from './json-map.js';
import { TestRunWatch } from './json-tests.js';

/** Watches the records as the record analyzer parses them. */
export class RecordKindWatch {
  private readonly tests = new TestRunWatch();
  private map: KindFacts | null = null;

  observe(value: unknown, n: number, chars: number, weight: number): void {
    this.tests.observe(value, weight);
    if (n === 1) this.map = detectMap(value, chars);
  }

  end(records: number, sampled: boolean): KindFacts | undefined {
    return this.tests.end(sampled) ?? (records === 1 ? this.map : null) ?? undefined;
  }
}

/** The kind of a JSON result: its watched kind, else records or one document. */
export function jsonKind(h: Header, r: { kind?: KindFacts }): Partial<KindFacts> & { kind: string } {
  if (r.kind) return r.kind;
  return { kind: h.content_type === 'json' && h.split === 'none' ? 'json-document' : 'json-records' };
}

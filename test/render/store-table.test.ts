// The `lro ls` printers, written into strings: table for a terminal, rows for a pipe, JSON items.
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { jsonItem, renderTable, tsvFields, tsvLine, tsvRow, type LsRow } from '../../src/render/store-table.js';

const NOW = Date.parse('2026-01-10T12:00:00Z');
const row = (id: string, ageS: number, leftS: number, extra: Partial<LsRow> = {}): LsRow => ({
  kind: 'result',
  id,
  operation: 'kubectl-get',
  records: 1234,
  tokens: 56789,
  size: 2_500_000,
  createdMs: NOW - ageS * 1000,
  expiresMs: NOW + leftS * 1000,
  timestamp: new Date(NOW - ageS * 1000).toISOString(),
  expiresAt: new Date(NOW + leftS * 1000).toISOString(),
  session: 'build-42',
  ...extra,
} as LsRow);

describe('renderTable', () => {
  it('aligns columns, shows relative times and marks expired and damaged files, without colour at level 0', () => {
    const text = renderTable(
      [row('01AAAAAAAAAAAAAAAAAAAAAAAA', 90, 7200), row('01BBBBBBBBBBBBBBBBBBBBBBBB', 3 * 86400, -5, { session: null }), { kind: 'damaged', id: '01CCCCCCCCCCCCCCCCCCCCCCCC', operation: 'x', reason: 'line 1 is not a JSON header' }],
      NOW,
      new Chalk({ level: 0 }),
    );
    expect(text).toBe(
      [
        'ID                          OPERATION    RECORDS  TOKENS    SIZE  AGE  EXPIRES  SESSION',
        '01AAAAAAAAAAAAAAAAAAAAAAAA  kubectl-get    1,234  56,789  2.5 MB   1m       2h  build-42',
        '01BBBBBBBBBBBBBBBBBBBBBBBB  kubectl-get    1,234  56,789  2.5 MB   3d  expired  -',
        '01CCCCCCCCCCCCCCCCCCCCCCCC  x            damaged: line 1 is not a JSON header',
        '2 results, 5.0 MB; 1 expired (lro gc removes them)',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('\x1b');
    expect(renderTable([row('01AAAAAAAAAAAAAAAAAAAAAAAA', 90, 60)], NOW, new Chalk({ level: 1 }))).toContain('\x1b[');
  });

  it('never lets control characters from a session reach the terminal', () => {
    const text = renderTable([row('01AAAAAAAAAAAAAAAAAAAAAAAA', 1, 60, { session: 'evil\x1b]0;title\x07\n' })], NOW, new Chalk({ level: 0 }));
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f]/);
    expect(text).toContain('evil?]0;title??');
  });
});

describe('pipe and JSON rows', () => {
  it('tab-separated with absolute times; a tab in a session cannot add a column', () => {
    const line = tsvRow(row('01AAAAAAAAAAAAAAAAAAAAAAAA', 90, 7200, { session: 'a\tb' }));
    expect(line.trimEnd().split('\t')).toEqual(['01AAAAAAAAAAAAAAAAAAAAAAAA', 'kubectl-get', '1234', '56789', '2500000', '2026-01-10T11:58:30.000Z', '2026-01-10T14:00:00.000Z', 'a?b']);
  });

  it('JSON item: the header line as written (padding dropped, big numbers kept) plus file_path and file_size', () => {
    const line = Buffer.from('{"type":"lro_header","envelope":{"n":12345678901234567890}}      ');
    expect(jsonItem(line, '/s/lro-x.jsonl', 99)).toBe('{"type":"lro_header","envelope":{"n":12345678901234567890},"file_path":"/s/lro-x.jsonl","file_size":99}');
  });

  it("a row's value (the MCP listing's): the named columns, numbers as numbers, no session null; its line the pipe's", () => {
    const r = row('01AAAAAAAAAAAAAAAAAAAAAAAA', 90, 7200);
    const fields = tsvFields(r)!;
    expect(fields).toEqual({
      id: '01AAAAAAAAAAAAAAAAAAAAAAAA',
      operation: 'kubectl-get',
      records: 1234,
      tokens: 56789,
      bytes: 2_500_000,
      timestamp: '2026-01-10T11:58:30.000Z',
      expires_at: '2026-01-10T14:00:00.000Z',
      session: 'build-42',
    });
    expect(tsvLine(fields)).toBe(tsvRow(r));
    const none = row('01BBBBBBBBBBBBBBBBBBBBBBBB', 1, 1, { session: null });
    expect(tsvFields(none)!.session).toBeNull();
    expect(tsvRow(none).trimEnd().split('\t').at(-1)).toBe('-');
    expect(tsvFields({ kind: 'damaged', id: 'x', operation: 'op', reason: 'bad' })).toBeNull();
  });
});

// YAML lines cut into records and parsed one at a time: a List's items, a stream's documents, a single document;
// anything that is not YAML, or too large, throws NotYaml (the result then stays text).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NotYaml, YamlRecordCutter, YAML_RECORD_MAX, type YamlRecordsOf } from '../../src/format/yaml-records.js';

function cut(text: string, mode?: YamlRecordsOf) {
  const records: unknown[] = [];
  const kinds: string[] = [];
  const c = new YamlRecordCutter((json, value, kind) => {
    expect(JSON.parse(json)).toEqual(value);
    records.push(value);
    kinds.push(kind);
  }, mode);
  for (const l of text.replace(/\n$/, '').split('\n')) c.line(l);
  return { ...c.end(), records, kinds };
}

const fixture = (p: string) => readFileSync(resolve(__dirname, '../../fixtures', p), 'utf8');

describe('YamlRecordCutter', () => {
  it("kubectl get -o yaml: a List's items are the records, each the item as JSON", () => {
    const json = JSON.parse(fixture('outputs/kubectl-get-pods.json'));
    const found = cut(fixture('yaml/kubectl-get-pods.yaml'));
    expect([found.of, found.count]).toEqual(['items', 120]);
    expect(found.kinds).toEqual(Array(120).fill('items'));
    expect(cut(fixture('yaml/kubectl-get-pods.yaml'), 'items').records).toEqual(json.items);
  });

  it('a multi-document stream: each document a record, comments and empty documents none', () => {
    const found = cut(fixture('error-lines/ok/kubectl-manifests.yaml'));
    expect(found.of).toBe('documents');
    expect(found.count).toBe(6);
    const again = cut(`# leading comment\n---\na: 1\n---\n# only a comment\n---\nb: [1, 2]\n...\n`, 'documents');
    expect(again.records).toEqual([{ a: 1 }, { b: [1, 2] }]);
    // a List among other documents is one document, not its items
    expect(cut('kind: List\nitems:\n- a: 1\n- a: 2\n---\nkind: Pod\n')).toMatchObject({ of: 'documents', count: 2 });
    expect(cut('kind: List\nitems:\n- a: 1\n- a: 2\n---\nkind: Pod\n', 'documents').records).toEqual([
      { kind: 'List', items: [{ a: 1 }, { a: 2 }] },
      { kind: 'Pod' },
    ]);
  });

  it('a single document (a GitHub workflow: `on` stays a string key in YAML 1.2) is one record', () => {
    const found = cut(fixture('yaml/github-workflow-ci.yml'));
    expect(found).toMatchObject({ of: 'documents', count: 1 });
    expect(Object.keys(found.records[0] as object)).toContain('on');
    expect((found.records[0] as { jobs: object }).jobs).toHaveProperty(['test-regression-check-node10', 'runs-on'], 'ubuntu-latest');
  });

  it('items indented under items:, a mapping that is not a list, an empty list', () => {
    expect(cut('items:\n  - name: a\n    v: 1\n  - name: b\nkind: X\n', 'items').records).toEqual([{ name: 'a', v: 1 }, { name: 'b' }]);
    expect(cut('items:\n  a: 1\nkind: X\n')).toMatchObject({ of: 'documents', count: 1 });
    expect(cut('apiVersion: v1\nitems: []\nkind: List\n')).toMatchObject({ of: 'items', count: 0 });
  });

  it('not YAML, a duplicate key, an alias bomb, a record too large: NotYaml', () => {
    expect(() => cut('a: [1, 2\nb: 3\n')).toThrow(NotYaml);
    expect(() => cut('a: 1\na: 2\n')).toThrow(NotYaml);
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`);
    expect(() => cut(`${bomb.join('\n')}\n`)).toThrow(NotYaml);
    const big = `a: |\n${`  ${'x'.repeat(1000)}\n`.repeat(YAML_RECORD_MAX / 1000 + 10)}`;
    expect(() => cut(big)).toThrow(/a record over 1 MB/);
    const docs = `---\na: |\n${`  ${'x'.repeat(1000)}\n`.repeat(900)}`.repeat(3);
    expect(() => cut(docs)).toThrow(/over 2 MB of YAML/);
  });
});

// End-to-end: YAML read as records (issue 38). A kubectl get -o yaml List's items, a multi-document manifest's
// documents and a GitHub workflow are queried by field with where, count and jq, while cat gives the bytes back and
// grep and read see the lines; YAML that is not, stays text and says why.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { lro, storeForFile } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const store = storeForFile();

const fixture = (p: string) => readFileSync(resolve(__dirname, '../../fixtures', p));

async function offload(input: Buffer | string): Promise<Record<string, any>> {
  const r = await lroHere(['offload', '--force', '--no-dedupe'], { input, env: store.env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out);
}

describe('YAML as records', () => {
  it("kubectl get pods -o yaml: the List's items are where's, count's and jq's records; the truth from the JSON listing", async () => {
    const d = await offload(fixture('yaml/kubectl-get-pods.yaml'));
    const pods = JSON.parse(fixture('outputs/kubectl-get-pods.json').toString()).items as { metadata: { name: string }; status: { phase: string } }[];
    expect(d.summary).toMatchObject({ content_type: 'text', kind: 'yaml', kind_facts: { records: { of: 'items', count: pods.length }, kinds: { Pod: pods.length } } });
    expect(d.guidance).toContain(`\`lro count ${d.id} --by status.phase\``);
    expect(d.guidance).toContain(`where, count and jq read the List's ${pods.length} items as JSON records`);

    const count = await lro(['count', d.id, '--by', 'status.phase'], { env: store.env });
    expect(count.code, count.stderr).toBe(0);
    const failed = pods.filter((p) => p.status.phase === 'Failed');
    expect(count.out).toMatch(new RegExp(`^ +${failed.length} +\\d+ +Failed$`, 'm'));
    expect(count.out).toContain(`${pods.length} records, 3 values`);

    const where = await lro(['where', d.id, 'status.phase=Failed', '--fields', 'metadata.name'], { env: store.env });
    expect(where.out.trim().split('\n').map((l) => JSON.parse(l.slice(l.indexOf(': ') + 2))['metadata.name'])).toEqual(failed.map((p) => p.metadata.name));
    expect(where.stderr).toBe(`lro: the records here are the ${pods.length} items of the YAML's List, each as JSON\n`);

    const jq = await lro(['jq', d.id, '-r', '.metadata.name', '--records', '2:3'], { env: store.env });
    expect(jq.out).toBe(`${pods[1].metadata.name}\n${pods[2].metadata.name}\n`);
    // --explain's jq gives what where gives
    const explain = await lro(['where', d.id, 'status.phase=Failed', '-c', '--explain'], { env: store.env });
    const words = explain.out.trim().match(/'(?:[^']|'\\'')*'|\S+/g)!.map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w));
    expect(words.slice(0, 2)).toEqual(['lro', 'jq']);
    const again = await lro(words.slice(1), { env: store.env });
    expect(Number(again.out.trim())).toBe(failed.length);

    // the lines are still the lines, and the bytes come back exactly
    expect((await lro(['cat', d.id], { env: store.env })).out).toBe(fixture('yaml/kubectl-get-pods.yaml').toString());
    expect((await lro(['read', d.id, '--records', '2:3'], { env: store.env })).out).toBe('2: items:\n3: - apiVersion: v1\n');
    expect((await lro(['grep', d.id, '^    phase: Failed$', '-c'], { env: store.env })).out.trim()).toBe(String(failed.length));
  });

  it('a multi-document manifest: each document a record; a GitHub workflow: one, by its fields', async () => {
    const m = await offload(fixture('error-lines/ok/kubectl-manifests.yaml'));
    expect(m.summary.kind_facts.records).toEqual({ of: 'documents', count: 6 });
    const kinds = await lro(['count', m.id, '--by', 'kind'], { env: store.env });
    expect(kinds.out).toMatch(/^ +2 +1 +Deployment$/m);
    const deployments = await lro(['where', m.id, 'kind=Deployment', '--fields', 'metadata.name'], { env: store.env });
    expect(deployments.out).toBe('1: {"metadata.name":"web"}\n6: {"metadata.name":"api"}\n');

    const w = await offload(fixture('yaml/github-workflow-ci.yml'));
    expect(w.summary.kind_facts.records).toEqual({ of: 'documents', count: 1 });
    expect(w.guidance).toContain(`\`lro jq ${w.id} '.jobs | keys'\``);
    const jobs = await lro(['jq', w.id, '-c', '.jobs | keys'], { env: store.env });
    expect(JSON.parse(jobs.out)).toContain('test-regression-check-node10');
    // `on` is a key (YAML 1.2), not true
    expect((await lro(['jq', w.id, '-c', 'has("on")'], { env: store.env })).out).toBe('true\n');
  });

  it('YAML that is not: stays text lines, never an error, and the descriptor says why', async () => {
    const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: [1, 2\n  b: 3\nspec:\n  c: 1\n  d: 2\n';
    const d = await offload(bad);
    expect(d.summary.kind).toBe('yaml');
    expect(d.summary.kind_facts.records).toBeNull();
    expect(d.summary.kind_facts.records_note).toMatch(/^the lines stay text, not records: /);
    expect(d.guidance).toContain('Record N is line N.');
    const w = await lro(['where', d.id, 'kind=ConfigMap'], { env: store.env });
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/is text: its lines have no field \.kind/);
    expect((await lro(['cat', d.id], { env: store.env })).out).toBe(bad);
  });
});

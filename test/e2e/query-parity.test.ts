// lro where and lro count give jq's answers: over corpus results, the records `lro where` prints equal what
// `lro jq -c` prints for the filter `--explain` shows, and what native jq prints for it on the stored records
// (`tail -n +2 FILE | jq`); `lro count --json` equals `jq -s 'group_by(...)…'` both ways. Values are compared
// parsed (jq 1.6 and 1.8 print some numbers differently).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, storeOnPath } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => ({ root, env } = storeOnPath({ LRO_MAX_OUTPUT_TOKENS: '0' })));
afterAll(() => cleanup(root));

function sh(cmd: string): { code: number; out: string; err: string } {
  const r = spawnSync('bash', ['-c', cmd], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const values = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);

interface Case {
  name: string;
  file: string;
  where: string[][];
  count: string[][];
}

const CASES: Case[] = [
  {
    name: 'github events (JSON array)',
    file: 'json-docs/github_events.json',
    where: [
      ['type=PushEvent'],
      ['type=PushEvent', 'payload.size>1'],
      ['actor.login~^[a-j]', 'public=true', 'type!=WatchEvent'],
      ['payload.commits[].author.name~a', 'type in ForkEvent,GollumEvent', '--any'],
      ['payload.issue.title?'],
      ['repo.name~^[A-Z]', 'payload.size<=1'],
      ['payload.ref=null', 'id>="1652857700"'],
    ],
    count: [['type'], ['public'], ['payload.commits[].author.email'], ['type', 'payload.ref_type'], ['payload.size']],
  },
  {
    name: 'phone listings (JSONL of arrays)',
    file: 'json-docs/amazon_cellphones.ndjson',
    where: [['.[1]=Samsung', '.[5]>=4'], ['.[1] in Apple,Nokia'], ['.[2]~unlocked', '-i'], ['.[5]<3', '.[1]!=Samsung']],
    count: [['.[1]'], ['.[5]']],
  },
  {
    name: 'go test -json (JSONL)',
    file: 'shell-output/go-test-json.out',
    where: [['Action=fail'], ['Action=fail', 'Test?'], ['Action=output', 'Output~FAIL'], ['Elapsed>0.01'], ['Package~gotest', 'Action in pass,skip']],
    count: [['Action'], ['Action', 'Package'], ['Test']],
  },
  {
    name: 'twitter statuses (object split on .statuses)',
    file: 'json-docs/twitter.json',
    where: [
      ['user.lang=ja', 'retweet_count>5'],
      ['entities.hashtags[].text?'],
      ['user.followers_count>=1000', 'user.followers_count<5000', 'favorited=false'],
      ['in_reply_to_screen_name?', 'metadata.result_type=recent'],
    ],
    count: [['user.lang'], ['user.time_zone'], ['possibly_sensitive'], ['entities.hashtags[].text']],
  },
];

/** The document compared in `npm test`; the soak compares the others. */
const QUICK = 'go test -json (JSONL)';

describe('lro where and lro count give what jq gives', () => {
  for (const c of CASES) {
    it(c.name, { tags: c.name === QUICK ? [] : ['soak'], timeout: 120_000 }, async () => {
      const off = await lro(['offload', '--force'], { input: readFileSync(corpusFile(c.file)), env });
      const d = JSON.parse(off.out) as { id: string; file_path: string };
      const records = values(sh(`lro jq ${d.id} -c .`).out).length;
      for (const conds of c.where) {
        const args = conds.map(quote).join(' ');
        const ours = sh(`lro where ${d.id} ${args}`);
        expect([0, 1], `${args}\n${ours.err}`).toContain(ours.code);
        expect(ours.err).toBe('');
        const explain = sh(`lro where ${d.id} ${args} --explain`).out.trim();
        const filter = /^lro jq \S+ -c '(.*)'$/.exec(explain)![1].replace(/'\\''/g, "'");
        const viaLro = sh(explain);
        expect(viaLro.code, `${explain}\n${viaLro.err}`).toBe(0);
        const native = sh(`tail -n +2 ${quote(d.file_path)} | jq -c ${quote(filter)}`);
        expect(native.code, `${filter}\n${native.err}`).toBe(0);
        const got = values(ours.out.replace(/^\d+: /gm, ''));
        expect(got.length, `${args} selects something`).toBeGreaterThan(0);
        expect(got.length, `${args} does not select everything`).toBeLessThan(records);
        expect(got, `${args}: lro jq`).toEqual(values(viaLro.out));
        expect(got, `${args}: jq`).toEqual(values(native.out));
      }
      for (const by of c.count) {
        const args = by.flatMap((b) => ['--by', quote(b)]).join(' ');
        const ours = sh(`lro count ${d.id} ${args} --json`);
        expect(ours.code, `${args}\n${ours.err}`).toBe(0);
        const explain = sh(`lro count ${d.id} ${args} --explain`).out.trim();
        const filter = /^lro jq \S+ -s -c '(.*)'$/.exec(explain)![1].replace(/'\\''/g, "'");
        const got = values(ours.out).map((g) => ({ value: (g as { value: unknown }).value, count: (g as { count: number }).count }));
        expect(got, `${args}: lro jq`).toEqual(values(sh(explain).out)[0]);
        expect(got, `${args}: jq`).toEqual(values(sh(`tail -n +2 ${quote(d.file_path)} | jq -s -c ${quote(filter)}`).out)[0]);
      }
    });
  }
});

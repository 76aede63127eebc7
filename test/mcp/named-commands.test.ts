// The commands lro names inside its own lines, besides a cut output's next one, reach an MCP client as the tool
// calls that do the same: the command that reads all of a record grep or where showed in part, and the lro jq
// command --explain answers with. They are values (io.ts LroLine's mentions), never read back from the text: a
// stored record that holds the same words is output like any other. So are the commands an error names (LroError's
// mentions): `see lro ls` is lro_ls.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LroTools } from '../../src/mcp/lro-tools.js';
import { toolResult } from '../../src/mcp/result.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { nextRead } from '../../src/commands/read.js';
import { notJsonNote } from '../../src/query/records.js';
import type { RunCapture } from '../../src/io.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

let root: string;
let env: Record<string, string>;
let tools: LroTools;
let id: string;

/** A text result whose record 2 is far larger than a small budget. */
const long = `short needle\n${'x'.repeat(30000)} needle ${'y'.repeat(30000)}\n${Array.from({ length: 3000 }, (_, i) => `filler line ${i}`).join('\n')}\n`;

beforeAll(async () => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  tools = await LroTools.load(env);
  const stored = await tools.call('lro_offload', { content: long, force: true });
  id = (stored.structuredContent as { id: string }).id;
});
afterAll(() => cleanup(root));

const text = (r: { content: { text: string }[] }) => r.content[0].text;
const lastLine = (s: string) => s.trimEnd().split('\n').at(-1)!;

describe('commands named in lro lines, as tool calls', () => {
  it('grep: all of a record shown in part is an lro_read call, in a note and in a continuation', async () => {
    const note = await tools.call('lro_grep', { id, pattern: 'x', records: '2:2', max_tokens: 60 });
    expect(lastLine(text(note))).toBe(
      `[lro: record 2 is larger than max_tokens 60 allows and is shown in part; all of it: lro_read ${JSON.stringify({ id, records: '2' })}]`,
    );
    // the CLI says the same with the command line, which reads the record whole
    const cli = await lro(['grep', id, 'x', '--records', '2:2', '--max-tokens', '60'], { env });
    expect(lastLine(cli.out)).toBe(`[lro: record 2 is larger than --max-tokens 60 allows and is shown in part; all of it: lro read ${id} --records 2]`);
    const whole = await tools.call('lro_read', { id, records: '2', max_tokens: 0 });
    expect(text(whole)).toContain('needle');

    const cut = await tools.call('lro_grep', { id, pattern: 'x|filler', records: '2:', max_tokens: 60 });
    const line = lastLine(text(cut));
    expect(line).toMatch(/^\[lro: record 2 is larger than max_tokens 60 allows and is shown in part; all of it: lro_read \{.*\}; output cut at max_tokens 60 after \d+ matching records; next: lro_grep \{.*\}\]$/);
    expect(line).toContain(`all of it: lro_read ${JSON.stringify({ id, records: '2' })}; output cut`);
    expect((cut.structuredContent as { next: { tool: string } }).next.tool).toBe('lro_grep');
  });

  it('where: the rest of a record shown in part is an lro_read call with its columns', async () => {
    const r = await tools.call('lro_where', { id, condition: ['.~needle'], records: '2:', max_tokens: 60 });
    const line = lastLine(text(r));
    const m = /the rest: lro_read (\{[^}]*\}); next: lro_where /.exec(line);
    expect(m, line).not.toBeNull();
    const call = JSON.parse(m![1]) as { id: string; records: string; columns: string };
    expect(call).toMatchObject({ id, records: '2' });
    expect(call.columns).toMatch(/^\d+:$/);
    const shown = /^2:\[0-(\d+)\/60008\]/m.exec(text(r));
    expect(call.columns).toBe(`${shown![1]}:`);
  });

  it("--explain answers with the lro_jq call that gives the same, and that call does", async () => {
    const json = Array.from({ length: 300 }, (_, i) => JSON.stringify({ i, status: i % 3 ? 'ok' : 'error' })).join('\n');
    const stored = await tools.call('lro_offload', { content: json, force: true });
    const jid = (stored.structuredContent as { id: string }).id;
    for (const [tool, args, jqArgs] of [
      ['lro_where', { id: jid, condition: ['status=error'], records: '10:40', explain: true }, { compact_output: true, records: '10:40' }],
      ['lro_where', { id: jid, condition: ['status=error'], count: true, explain: true }, { slurp: true }],
      ['lro_count', { id: jid, by: ['status'], explain: true }, { compact_output: true, slurp: true }],
    ] as const) {
      const explained = text(await tools.call(tool, args)).trim();
      const m = /^lro_jq (\{.*\})$/.exec(explained);
      expect(m, explained).not.toBeNull();
      const call = JSON.parse(m![1]) as Record<string, unknown>;
      expect(call).toMatchObject({ id: jid, ...jqArgs });
      const asked = text(await tools.call(tool, { ...args, explain: undefined }));
      if (tool === 'lro_count') {
        // a filter past jq's fast path needs the jq engine, which only the built CLI holds here
        const cli = await lro(['jq', jid, '-s', '-c', call.filter as string], { env });
        expect(JSON.parse(cli.out)).toEqual([{ value: 'ok', count: 200 }, { value: 'error', count: 100 }]);
        expect(asked).toMatch(/200 +2 +ok\n +100 +1 +error/);
        continue;
      }
      const answer = text(await tools.call('lro_jq', call));
      if ('count' in args) expect(answer.trim()).toBe(asked.trim());
      else expect(answer.trim().split('\n').map((l) => (JSON.parse(l) as { i: number }).i + 1)).toEqual(asked.trim().split('\n').map((l) => Number(l.split(':')[0])));
    }
  });

  it('a note on stderr names the record it skipped by the lro_read call that shows it', async () => {
    const mixed = Array.from({ length: 300 }, (_, i) => (i === 6 ? 'not json at all' : JSON.stringify({ i, status: i % 2 ? 'ok' : 'error' }))).join('\n');
    const stored = await tools.call('lro_offload', { content: mixed, force: true });
    const mid = (stored.structuredContent as { id: string }).id;
    const call = `lro_read ${JSON.stringify({ id: mid, records: '7' })}`;
    for (const [tool, args] of [
      ['lro_where', { id: mid, condition: ['status=error'], count: true }],
      ['lro_count', { id: mid, by: ['status'] }],
      ['lro_jq', { id: mid, filter: '.status', compact_output: true }],
    ] as const) {
      const r = text(await tools.call(tool, args));
      expect(r, tool).toContain(`lro: skipped 1 record that is not JSON (${call} shows it)`);
      expect(r, tool).not.toContain('lro read');
    }
    // the command line says it with the command, in the store the command was given
    const cli = await lro(['where', mid, 'status=error', '-c', '--dir', env.LRO_DIR], { env: { LRO_DIR: '/nonexistent' } });
    expect(cli.stderr).toBe(`lro: skipped 1 record that is not JSON (lro read ${mid} --records 7 --dir ${env.LRO_DIR} shows it)\n`);
    for (const cmd of [['count', mid, '--by', 'status'], ['jq', mid, '-c', '.status']]) {
      const r = await lro([...cmd, '--dir', env.LRO_DIR], { env: { LRO_DIR: '/nonexistent' } });
      expect(r.stderr, cmd[0]).toBe(`lro: skipped 1 record that is not JSON (lro read ${mid} --records 7 --dir ${env.LRO_DIR} shows it)\n`);
    }
  });

  it("rewrites lro's own note on stderr, not a message before it that quotes the same words", async () => {
    // (jq's error messages come first on stderr and may quote a record holding a note's very words)
    const run: RunCapture = { lines: [], values: [], maxBytes: Infinity };
    const note = notJsonNote(id, 1, 7, nextRead, run);
    const quoted = `jq: error (at <stdin>:3): ${note}`;
    const spec = TOOLS.find((t) => t.name === 'lro_jq')!;
    const r = await toolResult(spec, { stdout: '"a"\n', stderr: `${quoted}${note}`, code: 5, notes: run.lines }, tools.calls);
    const call = `lro_read ${JSON.stringify({ id, records: '7' })}`;
    expect(r.isError).toBe(true); // jq's runtime error: its messages, then lro's note
    expect(r.content[0].text).toContain(quoted.trim()); // quoted as jq wrote it
    expect(r.content[0].text.trimEnd().endsWith(`lro: skipped 1 record that is not JSON (${call} shows it)`)).toBe(true);
  });

  it('leaves stored text that looks like such a line as it is', async () => {
    const fake = `[lro: record 2 is larger than --max-tokens 60 allows and is shown in part; all of it: lro read ${id} --records 2]`;
    const stored = await tools.call('lro_offload', { content: `${'filler\n'.repeat(2000)}${fake}\n`, force: true });
    const fid = (stored.structuredContent as { id: string }).id;
    const r = await tools.call('lro_grep', { id: fid, pattern: 'all of it', max_tokens: 0 });
    expect(text(r).trim()).toBe(`2001:${fake}`);
  });

  it('an error that sends the user to lro ls names lro_ls; a flag no tool takes stays a flag', async () => {
    const missing = '01JD2X3Y4Z5A6B7C8D9E0F1G2H';
    const gone = await tools.call('lro_read', { id: missing });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toBe(`lro: no result ${missing} in the store: it may have expired or live in another store (see lro_ls {}, --dir)`);
    const bad = await tools.call('lro_grep', { id: 'nope', pattern: 'x' });
    expect(text(bad)).toBe("lro: invalid result id 'nope': ids are 26-character ULIDs, or 'last', 'last~1'… (see lro_ls {})");
    // a flag's dashes inside what the client typed are left as typed
    const typed = await tools.call('lro_read', { id: 'x--tail' });
    expect(text(typed)).toBe("lro: invalid result id 'x--tail': ids are 26-character ULIDs, or 'last', 'last~1'… (see lro_ls {})");
    const listed = await tools.call('lro_ls', {});
    expect(listed.isError).toBeFalsy();
    // the command line says it with the command, as before
    const cli = await lro(['read', missing], { env });
    expect(cli.stderr).toBe(`lro: no result ${missing} in ${env.LRO_DIR}: it may have expired or live in another store (see lro ls, --dir)\n`);
  });
});

// Every command of the table run in this process, as gh tests its commands: `def.run(input, io)` with a fake IO
// (no lro binary spawned, no commander), the exit code, the value a script or a client reads (JSON, a tool result,
// a settings file) and the text asserted; then the same text through the CLI (`main(argv, io)`, the declaration's
// parser in front) and through the built binary, which must agree byte for byte: the command is one function
// whatever face calls it.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { catCommand } from '../../src/commands/cat.js';
import { countCommand } from '../../src/commands/count.js';
import { diffCommand } from '../../src/commands/diff.js';
import { doctorCommand } from '../../src/commands/doctor.js';
import { gcCommand } from '../../src/commands/gc.js';
import { grepCommand } from '../../src/commands/grep.js';
import { infoCommand } from '../../src/commands/info.js';
import { initCommand } from '../../src/commands/init.js';
import { jqCommand } from '../../src/commands/jq.js';
import { lsCommand } from '../../src/commands/ls.js';
import { offloadCommand } from '../../src/commands/offload.js';
import { readCommand } from '../../src/commands/read.js';
import { runCommand } from '../../src/commands/run.js';
import { whereCommand } from '../../src/commands/where.js';
import { LroError } from '../../src/errors.js';
import { completionCommand } from '../../src/faces/completion.js';
import { mcpCommand } from '../../src/faces/mcp-command.js';
import { allCommands } from '../../src/faces/program.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/fake-io.js';

const FIXTURES = resolve(__dirname, '../../fixtures');
const log = readFileSync(join(FIXTURES, 'corpus/loghub/HDFS_2k.log'));
const events = readFileSync(join(FIXTURES, 'corpus/json-docs/github_events.json'));
const root = tempDir();
afterAll(() => cleanup(root));
const env = { LRO_DIR: join(root, 'store'), NO_COLOR: '1', HOME: root, PATH: process.env.PATH ?? '/usr/bin:/bin' };
const io = (stdin?: Buffer) => fakeIO({ stdin, env });

let logId = '';
let eventsId = '';

beforeAll(async () => {
  for (const [input, set] of [
    [log, (id: string) => (logId = id)],
    [events, (id: string) => (eventsId = id)],
  ] as const) {
    const f = io(input);
    expect(await offloadCommand.run({ json: true }, f)).toBe(0);
    const d = JSON.parse(f.out()) as { offloaded: boolean; id: string };
    expect(d.offloaded).toBe(true);
    set(d.id);
  }
});

describe('commands run in this process with a fake IO', () => {
  it('offload: a small input passes through unchanged, nothing stored', async () => {
    const f = io(Buffer.from('hello\n'));
    expect(await offloadCommand.run({}, f)).toBe(0);
    expect(f.out()).toBe('hello\n');
  });

  it('read: a range of records, numbered', async () => {
    const f = io();
    expect(await readCommand.run({ id: logId, records: '76:77' }, f)).toBe(0);
    expect(f.out()).toBe(
      '76: 081109 213908 2549 INFO dfs.DataNode$DataXceiver: 10.251.39.192:50010 Served block blk_-5341992729755584578 to /10.251.39.192\n' +
        '77: 081109 214009 2594 INFO dfs.DataNode$DataXceiver: 10.250.5.237:50010 Served block blk_3166960787499091856 to /10.251.43.147\n',
    );
  });

  it('grep: matches with their line numbers; 1 when nothing matches', async () => {
    const f = io();
    expect(await grepCommand.run({ id: logId, pattern: 'exception', ignoreCase: true, maxCount: '2' }, f)).toBe(0);
    expect(f.out().split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual(['78', '79']);
    const none = io();
    expect(await grepCommand.run({ id: logId, pattern: 'no such words here' }, none)).toBe(1);
    expect(none.out()).toBe('');
  });

  it('where and count: JSON records by field', async () => {
    const w = io();
    expect(await whereCommand.run({ id: eventsId, condition: ['type=IssuesEvent'], fields: 'id' }, w)).toBe(0);
    expect(w.out()).toContain('1652857694');
    const c = io();
    expect(await countCommand.run({ id: eventsId, condition: [], by: ['type'] }, c)).toBe(0);
    expect(c.out().split('\n')[1]).toMatch(/^\s*13\s+.*PushEvent/); // under the header line
  });

  it('jq: a filter over the records', async () => {
    const f = io();
    expect(await jqCommand.run({ id: eventsId, filter: 'select(.type == "IssuesEvent") | .actor.login', rawOutput: true }, f)).toBe(0);
    expect(f.out()).toBe('imsky\n');
  });

  it('cat: the original bytes back', async () => {
    const f = io();
    expect(await catCommand.run({ id: logId }, f)).toBe(0);
    expect(f.out()).toBe(log.toString());
  });

  it('info, ls and diff answer about the store', async () => {
    const i = io();
    expect(await infoCommand.run({ id: logId }, i)).toBe(0);
    expect(i.out()).toContain(logId);
    const l = io();
    expect(await lsCommand.run({ json: true }, l)).toBe(0);
    const ids = (JSON.parse(l.out()) as { id: string }[]).map((h) => h.id);
    expect(ids.sort()).toEqual([logId, eventsId].sort());
    const d = io();
    expect(await diffCommand.run({ a: logId, b: logId }, d)).toBe(0); // the same result: no difference
  });

  it('an unknown id is an LroError for the face to print, not output', async () => {
    const f = io();
    await expect(readCommand.run({ id: '01AAAAAAAAAAAAAAAAAAAAAAAA' }, f)).rejects.toBeInstanceOf(LroError);
    expect(f.out()).toBe('');
  });
});

describe('the same command through each face prints the same bytes', () => {
  const cases = () => [
    ['read', logId, '--records', '1990:2000'],
    ['grep', logId, 'WARN', '-m', '5', '-C', '1'],
    ['count', eventsId, '--by', 'type'],
    ['where', eventsId, 'type=PushEvent', '--fields', 'id,actor.login'],
    ['jq', eventsId, '-c', '{id, type}'],
    ['info', eventsId],
    ['read', 'nonexistent-id'],
  ];
  it('def.run behind the parser (main) and the built binary agree', async () => {
    for (const argv of cases()) {
      const f = io();
      const code = await main(argv, f);
      const bin = await lro(argv, { env });
      expect([code, f.out(), f.err()], argv.join(' ')).toEqual([bin.code, bin.out, bin.stderr]);
    }
  });
});

// The commands that look after the store, wire lro into a harness or print a script, run the same way: the value
// a script reads (gc --json's report, init's files) asserted apart from the text a person reads.
describe('the other commands run in this process with a fake IO', () => {
  it('run: a small output passes with the command status; a large one is stored and described', async () => {
    const small = io();
    expect(await runCommand.run({ command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] }, small)).toBe(3);
    expect([small.out(), small.err()]).toEqual(['out\n', 'err\n']);
    const large = io();
    expect(await runCommand.run({ command: ['sh', '-c', 'seq 1 20000; exit 4'], json: true }, large)).toBe(4);
    const d = JSON.parse(large.out()) as { offloaded: boolean; id: string; summary: { count: number; source: { exit_code: number } } };
    expect([d.offloaded, d.summary.count, d.summary.source.exit_code]).toEqual([true, 20000, 4]);
    const back = io();
    expect(await readCommand.run({ id: d.id, records: '19999:' }, back)).toBe(0);
    expect(back.out()).toBe('19999: 19999\n20000: 20000\n');
  });

  it('gc: its report as a value (--json) and as a line, the expired result removed, the others kept', async () => {
    const dir = join(root, 'gc-store');
    const gcIO = (now?: Date) => fakeIO({ env: { ...env, LRO_DIR: dir }, now });
    expect(await offloadCommand.run({ force: true, ttl: '1h', json: true }, fakeIO({ stdin: log, env: { ...env, LRO_DIR: dir } }))).toBe(0);
    expect(await offloadCommand.run({ force: true, ttl: '7d', json: true, dedupe: false }, fakeIO({ stdin: events, env: { ...env, LRO_DIR: dir } }))).toBe(0);
    const later = new Date(Date.now() + 2 * 3600_000); // past the first's hour, within the second's week
    const dry = gcIO(later);
    expect(await gcCommand.run({ dryRun: true, json: true }, dry)).toBe(0);
    expect(JSON.parse(dry.out())).toMatchObject({ removed_count: 1, kept_count: 1, dry_run: true });
    const text = gcIO(later);
    expect(await gcCommand.run({}, text)).toBe(0);
    expect(text.out()).toMatch(/^removed 1 result, freed [\d.]+ kB; kept 1 result\n$/);
    const list = fakeIO({ env: { ...env, LRO_DIR: dir } });
    expect(await lsCommand.run({ json: true }, list)).toBe(0);
    expect((JSON.parse(list.out()) as { operation: string }[]).length).toBe(1);
  });

  it('completion: a script that completes every command of the table', async () => {
    const f = io();
    const def = completionCommand(allCommands);
    expect(await def.run({ shell: 'bash' }, f)).toBe(0);
    for (const c of await allCommands()) if (!c.hidden) expect(f.out(), c.name).toContain(c.name);
    expect(f.out()).toMatch(/complete -F \S+ lro/);
  });

  it('init --dry-run: the edit shown, nothing written; then the edit made, and undone byte for byte', async () => {
    const home = join(root, 'home-init');
    const f = () => fakeIO({ env: { ...env, HOME: home, XDG_STATE_HOME: join(home, 'state') } });
    const settings = join(home, '.gemini', 'settings.json');
    const dry = f();
    expect(await initCommand.run({ harness: 'gemini', dryRun: true, force: true }, dry)).toBe(0);
    expect(dry.out()).toContain('.gemini/settings.json');
    expect(existsSync(settings)).toBe(false);
    expect(await initCommand.run({ harness: 'gemini', force: true }, f())).toBe(0);
    const written = JSON.parse(readFileSync(settings, 'utf8')) as { hooks?: Record<string, unknown> };
    expect(Object.keys(written.hooks ?? {}).length).toBeGreaterThan(0);
    expect(await initCommand.run({ harness: 'gemini', uninstall: true }, f())).toBe(0);
    expect(existsSync(settings) ? readFileSync(settings, 'utf8') : '').not.toContain('lro');
  });

  it('doctor: with no harness here, each harness as a value (--json), the text naming them and the command to run, exit 1', async () => {
    const here = { ...env, HOME: join(root, 'home-doctor'), PATH: '/usr/bin:/bin' };
    const json = fakeIO({ env: here });
    expect(await doctorCommand.run({ json: true }, json)).toBe(1);
    const report = JSON.parse(json.out()) as { healthy: boolean; harnesses: { harness: string; installed: unknown }[] };
    expect(report.healthy).toBe(false);
    expect(report.harnesses.map((h) => h.harness)).toEqual(['claude-code', 'codex', 'gemini', 'cursor', 'vscode', 'claude-desktop', 'opencode']);
    expect(report.harnesses.every((h) => h.installed === null)).toBe(true);
    const text = fakeIO({ env: here });
    expect(await doctorCommand.run({}, text)).toBe(1);
    expect(text.out()).toBe(
      `not found on this machine: ${report.harnesses.map((h) => h.harness).join(', ')}\n` +
        'lro is not installed in any harness: lro init HARNESS (one of the names above)\n',
    );
  });

  it('mcp: JSON-RPC on stdin, the answers on stdout, one per request; a large lro_offload stored', async () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lro_offload', arguments: { content: log.toString() } } },
    ];
    const f = fakeIO({ stdin: requests.map((r) => `${JSON.stringify(r)}\n`).join(''), env: { ...env, LRO_DIR: join(root, 'mcp-store') } });
    expect(await mcpCommand.run({}, f)).toBe(0); // its stdin ended: every call answered first
    const answers = f.out().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: Record<string, unknown> });
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    const tools = (answers[1].result.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toContain('lro_offload');
    const stored = answers[2].result.structuredContent as { offloaded: boolean; id: string; summary: { count: number } };
    expect([stored.offloaded, stored.summary.count]).toEqual([true, 2000]);
    const back = fakeIO({ env: { ...env, LRO_DIR: join(root, 'mcp-store') } });
    expect(await catCommand.run({ id: stored.id }, back)).toBe(0);
    expect(back.out()).toBe(log.toString());
  });

  it("mcp proxy: an upstream tool's large result stored, its descriptor naming lro's tools, a small one passed", async () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lines', arguments: { lines: 3 } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lines', arguments: { lines: 5000 } } },
    ];
    const dir = join(root, 'proxy-store');
    const f = fakeIO({ stdin: requests.map((r) => `${JSON.stringify(r)}\n`).join(''), env: { ...env, LRO_DIR: dir } });
    const proxy = mcpCommand.subcommands!.find((c) => c.name === 'proxy')!;
    expect(await proxy.run({ command: [process.execPath, join(__dirname, '../helpers/fake-upstream.mjs')] }, f)).toBe(0);
    const answers = f.out().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: { content: { text: string }[] } });
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[1].result.content[0].text).toMatch(/^greeting: \(none\)\nline 1 of the fake upstream\n/);
    const described = answers[2].result.content.map((c) => c.text).join('\n');
    expect(described).toMatch(/^Result of lines offloaded: 5,001 lines of text/);
    expect(described).toMatch(/lro_read \{"id":"[0-9A-Z]{26}"/);
    expect(described).not.toMatch(/\blro (read|grep|jq|count|info) /); // tool calls, not shell commands
  });
});

// Every cut output's next command makes progress, at any budget: following the next: commands of each command that
// cuts its output (read, grep, grep --all, jq, where, count, diff, ls, ls --sessions, info --full and --header)
// from a budget of 1 token up, no page repeats a command already run, and the pages end. A next command that is the
// command itself (nothing fitted, and the same budget asked again) sends an agent round in a loop: a part that shows
// nothing asks for a larger budget (budget.ts largerBudget). And, at budgets a line fits in, the pages put side by
// side are what --max-tokens 0 prints: every line once, in order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

let root: string;
let env: Record<string, string>;
const ids: Record<string, string> = {};
const NEXT = /\[lro: .*; next: (lro .*)\]$/;
/** A next: line in a --json output: its last element. */
const JSON_NEXT = /"next":"(lro [^"]*)"/;
/** Pages followed at most: the inputs are small, so a chain this long is a loop. */
const MAX_PAGES = 1000;

const words = (command: string) => command.match(/'(?:[^']|'\\'')*'|\S+/g)!.map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w));

async function offload(input: string, extra: string[] = []): Promise<string> {
  const r = await lroHere(['offload', '--force', '--json', ...extra], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.out) as { id: string }).id;
}

beforeAll(async () => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  const log = readFileSync(join(__dirname, '../../fixtures/corpus/loghub/OpenSSH_2k.log'), 'utf8').split('\n').slice(0, 120).join('\n');
  ids.log = await offload(`${log}\n`, ['--session', 's1']);
  const events = Array.from({ length: 80 }, (_, i) => JSON.stringify({ id: i, level: ['info', 'warn', 'error'][i % 3], msg: `event number ${i} ${'word '.repeat(i % 7)}` }));
  ids.a = await offload(`${events.join('\n')}\n`);
  ids.b = await offload(`${events.map((e, i) => (i % 5 === 0 ? e.replace('"info"', '"fatal"') : e)).join('\n')}\n`, ['--session', 's2']);
  for (let i = 0; i < 6; i++) await offload(`${'x'.repeat(50 + i)}\n`, ['--session', `extra-${i}`]);
  // one record far longer than any budget here, between short ones
  ids.long = await offload(`short one\n${'long words '.repeat(400)}\nshort two\n`);
  ids.bin = await offload(Array.from({ length: 30 }, (_, i) => `\0\x01string number ${i}\0`).join(''), ['--session', 'b']);
});
afterAll(() => cleanup(root));

/** The commands that cut their output at the budget, each as its words after `lro`. */
const commands = () => [
  ['read', ids.log],
  ['read', ids.a],
  ['read', ids.long],
  ['read', ids.log, '--tail', '30'],
  ['read', ids.log, '--chars', '0:3000'],
  ['read', ids.long, '--records', '2', '--columns', '100:4000'],
  ['grep', ids.log, 'sshd'],
  ['grep', ids.log, 'Failed|Invalid', '-C', '2'],
  ['grep', ids.a, 'error', '--json'],
  ['grep', ids.long, 'words'],
  ['grep', ids.log, '-v', 'sshd'],
  ['grep', ids.bin, '--strings', 'string'],
  ['grep', '--all', 'event|sshd'],
  ['grep', '--all', '-c', 'event|sshd'],
  ['grep', '--all', '-l', 'x|event|sshd'],
  ['jq', ids.a, '.msg'],
  ['jq', ids.a, '-c', '.'],
  ['jq', ids.a, '-s', '.'],
  ['jq', ids.a, '-r', '.msg * 40'],
  ['where', ids.a, 'level=error'],
  ['where', ids.a, 'level=error', '--fields', 'id,msg'],
  ['where', ids.long, '.~words'],
  ['count', ids.a, '--by', 'msg'],
  ['count', ids.log, '--by', 'template'],
  ['count', ids.a, '--by', 'msg', '--distinct'],
  ['count', ids.a, '--by', 'msg', '--json'],
  ['diff', ids.a, ids.b],
  ['diff', ids.a, ids.b, '--json'],
  ['diff', ids.log, ids.a, '--lines'],
  ['ls'],
  ['ls', '--json'],
  ['ls', '--sessions'],
  ['ls', '--sessions', '--json'],
  ['info', ids.a, '--full'],
  ['info', ids.a, '--header'],
];

describe('a cut output\'s next command makes progress', () => {
  /** The budgets `npm test` follows; the soak follows the others. */
  const quick = [1, 20, 90];
  for (const budget of [1, 2, 5, 13, 20, 40, 60, 90, 120, 250]) {
    it(`at --max-tokens ${budget}, for every command that cuts its output`, { tags: quick.includes(budget) ? [] : ['soak'] }, async () => {
      const stuck: string[] = [];
      for (const first of commands()) {
        let argv = [...first, '--max-tokens', String(budget)];
        const seen = new Set<string>();
        for (let page = 0; ; page++) {
          const key = argv.join(' ');
          if (seen.has(key)) {
            stuck.push(`lro ${first.join(' ')}: page ${page} repeats lro ${key}`);
            break;
          }
          if (page >= MAX_PAGES) {
            stuck.push(`lro ${first.join(' ')}: still cut after ${MAX_PAGES} pages`);
            break;
          }
          seen.add(key);
          const r = await lroHere(argv, { env });
          expect([0, 1], `lro ${key}\n${r.stderr}`).toContain(r.code);
          const last = r.out.trimEnd().split('\n').at(-1) ?? '';
          const next = NEXT.exec(last)?.[1] ?? (first.includes('--json') ? JSON_NEXT.exec(last)?.[1] : undefined);
          if (!next) break;
          argv = words(next).slice(1);
        }
      }
      expect(stuck).toEqual([]);
    });
  }
});

/** The lines of an output that are its content: not the last [lro: …] line, nor what each page repeats. */
function content(out: string, repeated: number): string[] {
  const lines = out.replace(/\n$/, '').split('\n');
  const last = lines.at(-1) ?? '';
  if (NEXT.test(last) || last.startsWith('{"type":"truncated"')) lines.pop();
  return lines.slice(repeated);
}

describe('together, the pages are the whole output', () => {
  /**
   * Commands whose pages put side by side give what --max-tokens 0 prints, the lines each page repeats at its top,
   * and which lines are content when a page also ends with lines of its own (count's totals: "(from the 77th)").
   */
  const paged = (): [string[], number, ((line: string) => boolean)?][] => [
    [['read', ids.a], 0],
    [['read', ids.log, '--records', '20:90'], 0],
    [['grep', ids.log, 'sshd'], 0],
    [['grep', ids.log, '-v', 'Failed'], 0],
    [['grep', ids.a, 'error', '--json'], 0],
    [['where', ids.a, 'level=error'], 0],
    [['where', ids.a, 'level!=info', '--fields', 'id,msg'], 0],
    [['jq', ids.a, '-c', '{id, level}'], 0],
    [['jq', ids.a, '-r', '.msg'], 0],
    [['count', ids.a, '--by', 'msg', '--distinct'], 1], // (the distinct count heads each page)
    [['count', ids.a, '--by', 'msg'], 1, (l) => !/^[\d,]+ records, /.test(l)], // (the column titles head each page)
    [['count', ids.a, '--by', 'msg', '--json'], 0],
    [['ls'], 0],
    [['ls', '--sessions'], 0],
  ];
  for (const budget of [100, 170, 400]) {
    it(`at --max-tokens ${budget}: every line once, in order`, async () => {
      for (const [first, repeated, keep = () => true] of paged()) {
        const whole = await lroHere([...first, '--max-tokens', '0'], { env });
        let argv = [...first, '--max-tokens', String(budget)];
        const got: string[] = [];
        for (let page = 0; page < MAX_PAGES; page++) {
          const r = await lroHere(argv, { env });
          const last = r.out.trimEnd().split('\n').at(-1) ?? '';
          got.push(...content(r.out, page === 0 ? 0 : repeated).filter(keep));
          const next = NEXT.exec(last)?.[1] ?? (first.includes('--json') ? JSON_NEXT.exec(last)?.[1] : undefined);
          if (!next) break;
          argv = words(next).slice(1);
        }
        expect(got, `lro ${first.join(' ')} at ${budget}`).toEqual(content(whole.out, 0).filter(keep));
      }
    });
  }
});

// A program's own failure message is an error line whatever the kind (issue 38: every fact a descriptor states is
// true of the whole output, and "No error lines" over a failure is false). Real outputs of this machine's tools
// (fixtures/error-lines/fail, made by bench/make-failure-outputs.mjs): `ls -laR`, `find` and `du -a` with a missing
// path among their operands, whose message (`ls: cannot access 'x': No such file or directory`) holds no error word
// and was called data; gcc and make of a file with 120 warnings whose link failed, whose linker's and make's errors
// the diagnostics kind did not count ("errors: 0", "No error."). Each descriptor now counts them, and its first next
// command reads around the first of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const FIXTURES = join(__dirname, '../../fixtures');
let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

type D = Record<string, any>;

async function offload(input: Buffer | string): Promise<D> {
  const r = await lroHere(['offload', '--force'], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out) as D;
}

const text = (file: string) => readFileSync(join(FIXTURES, file), 'utf8');
/** The 1-based numbers of the lines of `input` that `re` matches. */
const numbers = (input: string, re: RegExp) =>
  input
    .split('\n')
    .map((l, i) => (re.test(l) ? i + 1 : 0))
    .filter(Boolean);

/** The commands of a descriptor's guidance after "Next:", in order. */
const nextCommands = (d: D): string[] => [...(/Next: (.*)$/.exec(d.guidance)?.[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** Runs the first next command of a descriptor; it reads the lines around `line`, which it shows. */
async function firstNextReads(d: D, line: number, shown: string): Promise<void> {
  const first = nextCommands(d)[0];
  // (ten lines below it, or to the last line)
  expect(first).toBe(`lro read ${d.id} --records ${Math.max(1, line - 3)}:${Math.min(line + 10, d.summary.count)}`);
  const r = await lro(first.split(' ').slice(1), { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain(shown);
}

describe("a program's failure message among data lines is an error line (real outputs)", () => {
  it.each([
    ['error-lines/fail/ls-laR-missing.txt', 'listing', /^ls: cannot access '\/nonexistent-dir': No such file or directory$/],
    ['error-lines/fail/find-missing.txt', 'paths', /^find: .*: No such file or directory$/],
    ['error-lines/fail/du-missing.tsv', 'tsv', /^du: cannot access '\/nonexistent-du': No such file or directory$/],
  ])('%s: a %s, and the lines of its failure', async (file, kind, message) => {
    const input = text(file);
    const at = numbers(input, message);
    expect(at.length).toBeGreaterThan(0);
    const d = await offload(input);
    expect(d.summary.kind).toBe(kind);
    expect(d.summary.error_lines).toBe(at.length);
    expect(d.preview.errors.map((l: string) => Number(/^(\d+):/.exec(l)![1]))).toEqual(at);
    const what = at.length === 1 ? 'line is' : 'lines are';
    const messages = at.length === 1 ? 'a failure message' : 'failure messages';
    const where = at.length === 1 ? `line ${at[0]}` : `line ${at[0]} to ${at.at(-1)}`;
    expect(d.guidance).toContain(`${at.length} ${what} not ${kind} data but ${messages} (${where}).`);
    expect(d.guidance).not.toContain('No error lines');
    await firstNextReads(d, at[0], input.split('\n')[at[0] - 1]);
  });

  it('every kind whose lines are data tells such messages, with no error word among them', async () => {
    const failures = [
      "ls: cannot access '/nonexistent-dir': No such file or directory",
      'find: ‘/nonexistent’: No such file or directory',
      "touch: cannot touch '/usr/lib/x': Read-only file system",
      "make: *** No rule to make target 'lib.o', needed by 'all'.  Stop.",
      'bash: line 1: cargo-nextest: command not found',
    ];
    // (5 lines: ps aux's 101 rows stay a table, at 95 of 100 lines that are rows)
    const cases: [string, string][] = [
      ['error-lines/ok/dpkg-l.txt', 'table'],
      ['outputs/ps-aux.txt', 'table'],
      ['outputs/ls-laR-share-doc.txt', 'listing'],
      ['outputs/find-usr-include.txt', 'paths'],
      ['outputs/du-a.tsv', 'tsv'],
      ['outputs/orders.csv', 'csv'],
      ['outputs/git-log-stat.txt', 'git-log'],
      ['outputs/git-diff.patch', 'diff'],
      ['error-lines/ok/kubectl-manifests.yaml', 'yaml'],
      ['error-lines/ok/dpkg-s-packages.txt', 'deb822'],
      ['outputs/shop-dump.sql', 'sql-dump'],
    ];
    for (const [file, kind] of cases) {
      const data = text(file);
      const d = await offload(`${data}${failures.join('\n')}\n`);
      const first = data.split('\n').length;
      expect(d.summary.kind, file).toBe(kind);
      expect(d.summary.error_lines, file).toBe(failures.length);
      expect(d.guidance, file).toContain(`${failures.length} lines are not ${kind} data but failure messages (line ${first} to ${first + failures.length - 1}).`);
      expect(nextCommands(d)[0], file).toBe(`lro read ${d.id} --records ${first - 3}:${Math.min(first + 10, d.summary.count)}`);
    }
  });

  it('in a text, such a message looks like an error; its words find it', async () => {
    const prose = Array.from({ length: 30 }, (_, i) => `step ${i + 1}: copied the files of part ${i + 1}`);
    const input = [...prose, "cp: cannot stat 'a.txt': No such file or directory", ...prose].join('\n');
    const d = await offload(`${input}\n`);
    expect(d.summary.kind).toBe('text');
    expect(d.summary.error_lines).toBe(1);
    expect(d.guidance).toContain('1 line looks like an error (line 31).');
    const grep = nextCommands(d)[0];
    expect(grep).toBe(`lro grep ${d.id} 'no such file or directory' -i -C 2`);
    const r = await lro(['grep', d.id, 'no such file or directory', '-i', '-C', '2'], { env });
    expect(r.out).toContain("31:cp: cannot stat 'a.txt': No such file or directory");
  });
});

describe('a build whose link failed is no build without errors (real outputs)', () => {
  it.each([
    ['error-lines/fail/gcc-link.txt', /: undefined reference to |^collect2: error: /],
    ['error-lines/fail/make-link.txt', /: undefined reference to |^collect2: error: |^make: \*\*\* /],
  ])('%s: 120 warnings, and the linker’s and make’s errors', async (file, failure) => {
    const input = text(file);
    const at = numbers(input, failure);
    expect(at.length).toBeGreaterThanOrEqual(3);
    const d = await offload(input);
    expect(d.summary.kind).toBe('diagnostics');
    const f = d.summary.kind_facts;
    expect([f.errors, f.warnings]).toEqual([at.length, 120]);
    expect(f.by_code).toEqual({ '-Wunused-variable': 120 });
    expect(d.summary.error_lines).toBe(at.length);
    expect(d.preview.errors.map((l: string) => Number(/^(\d+):/.exec(l)![1]))).toEqual(at);
    expect(d.guidance).toContain(`${at.length} lines are errors (first: line ${at[0]}).`);
    expect(d.guidance).not.toContain('No error');
    await firstNextReads(d, at[0], input.split('\n')[at[0] - 1]);
  });

  it('make’s `*** … Error 1` and cargo’s `error: could not compile` are errors of the build', async () => {
    for (const [file, failure] of [
      ['error-lines/fail/make-error.txt', /: error: |^make: \*\*\* /],
      ['outputs/cargo-errors.txt', /^error(\[E\d+\])?: /],
    ] as const) {
      const input = text(file);
      const at = numbers(input, failure);
      const d = await offload(input);
      expect(d.summary.kind, file).toBe('diagnostics');
      expect(d.summary.kind_facts.errors, file).toBe(at.length);
      expect(d.guidance, file).toContain(`${at.length} lines are errors (first: line ${at[0]}).`);
    }
  });
});

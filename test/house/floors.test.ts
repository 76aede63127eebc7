// Every import in src/ points down ARCHITECTURE.md's floors (or along one): a module never imports one a floor
// above it. The floors are read from ARCHITECTURE.md's table itself, so the page and the code cannot drift apart.
// The imports that point up today are listed with why; a new one fails, and so does one listed that is gone.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sources, SRC } from './graph.js';

const ROOT = resolve(__dirname, '../..');

/** Upward imports still to be moved, `from -> to`: none today; one added here says why it must stay. */
const KNOWN_UP: string[] = [];

/**
 * The rooms that find, read, compare and describe: they give values (and use the budget, budget.ts, to stop), and
 * the printers of render/ print them; none of them imports a printer, not even one on its own floor.
 */
const ENGINE_ROOMS = ['engines', 'compare', 'search', 'query', 'describe', 'store', 'format'];

/**
 * The faces that hand values to a program rather than print: the library (`api/`) takes a search's lines as
 * values (search/grep-values.ts) and jq's outputs one by one (engines/jq-spec.ts jqOutputs), never by parsing what
 * a printer printed. (`mcp/` gets values too: see the tests below.)
 */
const VALUE_FACES = ['api'];

/** The imports of a printer (`render/…`) by a module of `rooms` (ENGINE_ROOMS by default), `from -> to`. */
export function printerImports(graph: Map<string, string[]>, rooms = ENGINE_ROOMS): string[] {
  const engine = (rel: string) => rooms.includes(rel.split('/')[0]);
  return [...graph].flatMap(([from, tos]) => (engine(from) ? tos.filter((to) => to.startsWith('render/')).map((to) => `${from} -> ${to}`) : []));
}

/** The floor of each room named in ARCHITECTURE.md's table ("| 7 | `commands/` | …"): `commands` -> 7. */
export function floorsOf(page: string): Map<string, number> {
  const floors = new Map<string, number>();
  for (const m of page.matchAll(/^\| (\d+) \| (.+?) \|/gm)) {
    for (const room of m[2].matchAll(/`([^`]+)`/g)) floors.set(room[1].replace(/\/$/, ''), Number(m[1]));
  }
  return floors;
}

describe("the floors of ARCHITECTURE.md's table", () => {
  const floors = floorsOf(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));
  const floorOf = (rel: string) => floors.get(rel) ?? floors.get(rel.split('/')[0]);

  it('reads the table (the checker works)', () => {
    expect(floorsOf('| 7 | `commands/` | x |\n| 1 | `format/`, `io.ts` | y |')).toEqual(
      new Map([
        ['commands', 7],
        ['format', 1],
        ['io.ts', 1],
      ]),
    );
    expect(floors.get('cli.ts')).toBe(Math.max(...floors.values())); // the top floor
    expect(floors.size).toBeGreaterThan(20);
  });

  it('names a floor for every module of src/', () => {
    const homeless = sources(SRC).map((f) => relative(SRC, f)).filter((rel) => floorOf(rel) === undefined);
    expect(homeless).toEqual([]);
  });

  it('has every import point down or along, but the known ones', () => {
    const up: string[] = [];
    for (const file of sources(SRC)) {
      const from = relative(SRC, file);
      for (const to of importsOf(file, readFileSync(file, 'utf8'))) {
        if ((floorOf(to) ?? 0) > (floorOf(from) ?? 0)) up.push(`${from} -> ${to}`);
      }
    }
    expect(up.sort()).toEqual([...KNOWN_UP].sort());
  });
});

describe('no printer under the engines', () => {
  it('finds an engine that imports a printer (the checker works)', () => {
    const g = new Map([
      ['compare/print.ts', ['budget.ts', 'render/grep-output.ts']],
      ['engines/jq.ts', ['render/budget.ts']],
      ['commands/grep.ts', ['render/grep-output.ts']],
      ['render/diff.ts', ['common-ends.ts']],
    ]);
    expect(printerImports(g)).toEqual(['compare/print.ts -> render/grep-output.ts', 'engines/jq.ts -> render/budget.ts']);
  });

  it('has no import of render/ in engines/, compare/, search/, query/, describe/, store/ or format/', () => {
    const graph = new Map<string, string[]>();
    for (const file of sources(SRC)) graph.set(relative(SRC, file), importsOf(file, readFileSync(file, 'utf8')));
    expect(graph.has('compare/print.ts')).toBe(true);
    expect(printerImports(graph)).toEqual([]);
  });

  it('has no import of render/ in api/ (the library collects values, not printed lines)', () => {
    const graph = new Map<string, string[]>();
    for (const file of sources(SRC)) graph.set(relative(SRC, file), importsOf(file, readFileSync(file, 'utf8')));
    expect(graph.has('api/search.ts')).toBe(true);
    expect(printerImports(graph, VALUE_FACES)).toEqual([]);
  });
});

/** Where a module splits printed output: a command's stdout into lines, or a line at its tabs (`path: the code`). */
export function printedSplits(files: Map<string, string>): string[] {
  const found: string[] = [];
  const split = /\bstdout\.split\(|\.split\(\s*(['"`])\\t\1\s*\)/g;
  for (const [name, text] of files) for (const m of text.matchAll(split)) found.push(`${name}: ${m[0]}`);
  return found;
}

/** Where a module parses a command's printed JSON (`JSON.parse(out.stdout)`). */
export function printedParses(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [name, text] of files) for (const m of text.matchAll(/\bJSON\.parse\([^()]*\bstdout\b/g)) found.push(`${name}: ${m[0]}`);
  return found;
}

/**
 * Where a module writes an `lro NAME …` command line by hand (not by commands/argv.ts): in a template, or as an
 * array of its words joined.
 */
export function handMadeCommands(files: Map<string, string>, name: string): string[] {
  const found: string[] = [];
  const made = new RegExp(`\`lro ${name} \\$\\{|\\[\\s*'lro',\\s*'${name}'`, 'g');
  for (const [file, text] of files) for (const m of text.matchAll(made)) found.push(`${file}: ${m[0]}`);
  return found;
}

describe('the MCP server parses no printed output of what it gets as values', () => {
  const read = (dir: string) => new Map(sources(join(SRC, dir)).map((f) => [relative(SRC, f), readFileSync(f, 'utf8')]));

  it('finds a split of a printed row and a hand-made command (the checkers work)', () => {
    const sample = new Map([['mcp/x.ts', "const rows = out.stdout.split('\\n').map((l) => l.split('\\t'));\nconst next = `lro read ${id} --records 5:`;"]]);
    expect(printedSplits(sample)).toEqual(['mcp/x.ts: stdout.split(', "mcp/x.ts: .split('\\t')"]);
    expect(printedParses(new Map([['mcp/z.ts', 'const doc = JSON.parse(out.stdout) as Descriptor;']]))).toEqual(['mcp/z.ts: JSON.parse(out.stdout']);
    expect(handMadeCommands(sample, 'read')).toEqual(['mcp/x.ts: `lro read ${']);
    const words = new Map([['render/y.ts', "const words = ['lro', 'where', id, ...args];"]]);
    expect(handMadeCommands(words, 'where')).toEqual(["render/y.ts: ['lro', 'where'"]);
    expect(handMadeCommands(words, 'count')).toEqual([]);
  });

  it('has no module of api/ that splits an output into lines (what the engines give comes as values)', () => {
    const api = read('api');
    expect(api.has('api/search.ts')).toBe(true);
    const splits = [...api].flatMap(([file, text]) =>
      text.split('\n').filter((line) => /\.split\(\s*(['"`])\\n\1\s*\)/.test(line) && !/\bstderr\b/.test(line)).map((line) => `${file}: ${line.trim()}`),
    );
    expect(splits).toEqual([]);
  });

  it("has no module of mcp/ that splits lro ls's printed rows (lro_ls is made from the rows ls gives)", () => {
    const mcp = read('mcp');
    expect(mcp.has('mcp/result.ts')).toBe(true);
    expect(printedSplits(mcp)).toEqual([]);
  });

  it("has no module of mcp/ that parses the JSON lro offload and lro info print (their results are made from the document they give)", () => {
    const mcp = read('mcp');
    expect(mcp.get('mcp/result.ts')).toContain('GivenDocument');
    expect(printedParses(mcp)).toEqual([]);
  });

  it("has lro read's continuations made as values (commands/argv.ts), so no tool call is read back from their text", () => {
    const commands = read('commands');
    expect(commands.get('commands/read.ts')).toContain('nextCommand(readCommand');
    expect(handMadeCommands(commands, 'read')).toEqual([]);
  });

  it("has lro where's, lro count's and lro grep's continuations made as values, none written by their printers", () => {
    const commands = read('commands');
    expect(commands.get('commands/where.ts')).toContain('nextCommand(whereCommand');
    expect(commands.get('commands/count.ts')).toContain('nextCommand(countCommand');
    expect(commands.get('commands/grep.ts')).toContain('nextCommand(grepCommand');
    const printers = new Map([...commands, ...read('render')]);
    expect(printers.has('render/grep-all-output.ts')).toBe(true);
    for (const name of ['where', 'count', 'grep']) expect(handMadeCommands(printers, name)).toEqual([]);
  });

  it("has lro jq's, lro diff's, lro info's and lro ls's continuations made as values, none written by hand", () => {
    const commands = read('commands');
    for (const name of ['jq', 'diff', 'info', 'ls']) expect(commands.get(`commands/${name}.ts`)).toContain(`nextCommand(${name}Command`);
    // lro where --explain prints the jq command that does the same: a command shown, not a continuation
    const own = [...commands].filter(([file]) => ['jq', 'diff', 'info', 'ls'].some((name) => file === `commands/${name}.ts`));
    const makers = new Map([...own, ...read('render'), ...read('engines'), ...read('compare')]);
    expect(makers.has('engines/jq-spec.ts')).toBe(true);
    for (const name of ['jq', 'diff', 'info', 'ls']) expect(handMadeCommands(makers, name)).toEqual([]);
  });
});

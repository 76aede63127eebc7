// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
// Every command a descriptor offers next finds something (issue 38: no false statement in a descriptor, and a next
// command is one): each real output of fixtures/outputs is offloaded, and each `lro …` its guidance names is run as
// printed. It must exit 0 and print something other than a "nothing found" line: a grep for a source map the file
// has not, a read of records past the end, a heading search in a page with no headings are what this catches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const OUTPUTS = join(__dirname, '../../fixtures/outputs');
const ERROR_LINES = join(__dirname, '../../fixtures/error-lines');
let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

/** The commands of a guidance's `Next:` list, as argv (single quotes as the shell reads them). */
function nextCommands(guidance: string): string[][] {
  const next = guidance.slice(guidance.lastIndexOf('Next: '));
  return [...next.matchAll(/`lro ([^`]*)`/g)].map((m) =>
    m[1].match(/'(?:[^']|'\\'')*'|\S+/g)!.map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w)),
  );
}

const inputs = [
  ...readdirSync(OUTPUTS)
    .filter((f) => f !== 'MANIFEST.md')
    .map((f) => join(OUTPUTS, f)),
  ...['ok', 'fail'].flatMap((d) =>
    readdirSync(join(ERROR_LINES, d))
      .filter((f) => !f.endsWith('.gz') && !f.endsWith('.md'))
      .map((f) => join(ERROR_LINES, d, f)),
  ),
];

describe('the next commands a descriptor offers', () => {
  it.each(inputs.map((p) => [p.slice(p.indexOf('fixtures/')), p]))('%s: each runs and finds something', async (_, path) => {
    const off = await lro(['offload', '--force', '--json'], { input: readFileSync(path), env });
    expect(off.code, off.stderr).toBe(0);
    const d = JSON.parse(off.out);
    const cmds = nextCommands(d.guidance);
    expect(cmds.length, d.guidance).toBeGreaterThan(0);
    for (const argv of cmds) {
      const r = await lro(argv, { env });
      const said = `lro ${argv.join(' ')} → ${r.code}: ${r.out.slice(0, 200)}${r.stderr}`;
      expect(r.code, said).toBe(0);
      expect(r.out.trim(), said).not.toBe('');
      // grep -c of nothing prints 0; a count is something only when it is not 0
      expect(r.out.trim(), said).not.toMatch(/^0$/);
    }
  });
});

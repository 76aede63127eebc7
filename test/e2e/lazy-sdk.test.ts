// The MCP SDK loads only in `lro mcp` (as tsx proves esbuild is not loaded without --eval): every other command,
// the help and the completion script run without it. Proved by tracing the modules a run loads, and checking that
// none of the bundle's chunks it loads holds SDK code; `lro mcp` itself is the control that does load it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const TRACE = join(__dirname, '../helpers/module-trace.mjs');
/** A string the SDK's protocol code holds and lro's own code does not (lro doctor speaks the MCP handshake itself,
 * so `notifications/initialized` is in lro's own code now). */
const SDK_MARK = 'notifications/roots/list_changed';

let root: string;
let store: string;
let id: string;
let n = 0;

/** The files of the modules `lro ARGS` loaded. */
async function loaded(args: string[], input = ''): Promise<string[]> {
  const trace = join(root, `trace-${n++}.txt`);
  const r = await lro(args, { input, env: { LRO_DIR: store, LRO_MODULE_TRACE: trace }, nodeArgs: ['--import', TRACE] });
  expect(r.code, r.stderr).toBe(0);
  expect(existsSync(trace)).toBe(true);
  return readFileSync(trace, 'utf8').split('\n').filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
}

const sdkLoaded = (files: string[]) => files.filter((f) => f.includes('@modelcontextprotocol') || readFileSync(f, 'utf8').includes(SDK_MARK));

beforeAll(async () => {
  root = tempDir();
  store = join(root, 'store');
  id = JSON.parse((await lro(['offload', '--force'], { input: 'one\ntwo\n', env: { LRO_DIR: store } })).out).id;
});
afterAll(() => cleanup(root));

describe('the MCP SDK is loaded only by lro mcp', () => {
  it('is not loaded by offload, read, grep, jq, the help or completion', async () => {
    for (const [args, input] of [
      [['offload'], 'the quick brown fox jumps over the lazy dog\n'.repeat(460)], // (20 KB, passed by the bundle: bin/passthrough.js passes less)
      [['read', id], ''],
      [['grep', id, 'one'], ''],
      [['jq', id, '.'], ''],
      [['--help'], ''],
      [['mcp', '--help'], ''],
      [['completion', 'bash'], ''],
    ] as [string[], string][]) {
      const files = await loaded(args, input);
      expect(files.some((f) => f.includes('/dist/')), args.join(' ')).toBe(true);
      expect(sdkLoaded(files), args.join(' ')).toEqual([]);
    }
  });

  it('is loaded by lro mcp (the control: the check sees it when it is there)', async () => {
    const files = await loaded(['mcp'], ''); // stdin closed at once: the server starts and ends
    expect(sdkLoaded(files).length).toBeGreaterThan(0);
  });
});

// lro in the real opencode (the pinned release, installed into a cache folder on first use), driven offline by a
// scripted model: `lro init opencode --wrap` edits the user's opencode.json (JSONC, a comment in it), opencode
// starts the wrapped server and lro's own from that file, and every assertion is on what the model is sent.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lro } from '../helpers/cli.js';
import { chatModelConfig, ensureOpencode, runOpencode, startChatModel, type ChatModel } from '../helpers/opencode.js';

const install = ensureOpencode();
if (install.skip) console.warn(`skipping the opencode end-to-end tests: ${install.skip}`);
const FAKE = resolve(__dirname, '../helpers/fake-upstream.mjs');

let root: string;
let model: ChatModel;
let config: string;
let original: string;
const env: Record<string, string> = {};

beforeAll(async () => {
  if (install.skip) return;
  root = mkdtempSync(join(tmpdir(), 'lro-opencode-'));
  model = await startChatModel();
  Object.assign(env, {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_STATE_HOME: join(root, 'state'),
    XDG_CACHE_HOME: join(root, 'cache'),
    LRO_DIR: join(root, 'store'),
  });
  config = join(root, 'config', 'opencode', 'opencode.json');
  mkdirSync(join(root, 'config', 'opencode'), { recursive: true });
  mkdirSync(join(root, 'work'));
  const environment = { FAKE_GREETING: 'hello from opencode.json' };
  const fake = { type: 'local', command: [process.execPath, FAKE], environment };
  const doc = { $schema: 'https://opencode.ai/config.json', ...chatModelConfig(model.baseURL), mcp: { fake } };
  original = JSON.stringify(doc, null, 2).replace('  "mcp": {', '  // my servers\n  "mcp": {') + '\n';
  writeFileSync(config, original);
  const r = await lro(['init', 'opencode', '--wrap', '--force'], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain("behind lro's proxy, large results offloaded: fake");
}, 900_000);

afterAll(async () => {
  if (install.skip) return;
  await model.close();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!!install.skip)('opencode (real binary) with lro init opencode --wrap', () => {
  test("a wrapped server's large result reaches the model as a descriptor; the whole is found by its id", async () => {
    model.script('fake_lines', { lines: 20000 });
    const r = await runOpencode(install.bin!, 'list the lines', join(root, 'work'), env);
    expect(r.code, r.out).toBe(0);
    const got = model.results.at(-1)!;
    expect(got.length).toBeLessThan(12_000);
    const id = /\bid: ([0-9A-Z]{26})\b/.exec(got)?.[1];
    expect(id, got).toBeDefined();
    expect(got).toContain('greeting: hello from opencode.json'); // the entry's environment reached the server
    const found = await lro(['grep', id!, 'line 19999 of'], { env });
    expect(found.out).toContain('line 19999 of the fake upstream');
    // lro's own server is there too, its tools named as every result names them (not lro_lro_read)
    expect(model.tools).toEqual(expect.arrayContaining(['fake_lines', 'lro_grep', 'lro_read']));
    expect(model.tools.filter((t) => t.startsWith('lro_lro_'))).toEqual([]);
    // the call the descriptor names is one the model can make as written
    const named = /\blro_read (\{[^\n]*?\})/.exec(got)?.[1];
    expect(named, got).toBeDefined();
    model.script('lro_read', JSON.parse(named!) as Record<string, unknown>);
    const back = await runOpencode(install.bin!, 'read it', join(root, 'work'), env);
    expect(back.code, back.out).toBe(0);
    expect(model.results.at(-1)).toMatch(/^1: greeting: hello from opencode\.json\n2: line 1 of the fake upstream\n/);
  });

  test('a small result reaches the model unchanged', async () => {
    model.script('fake_lines', { lines: 2 });
    const r = await runOpencode(install.bin!, 'two lines', join(root, 'work'), env);
    expect(r.code, r.out).toBe(0);
    expect(model.results.at(-1)).toBe(
      'greeting: hello from opencode.json\nline 1 of the fake upstream\nline 2 of the fake upstream',
    );
  });

  test('lro init opencode --uninstall gives the file back byte for byte, comment and all', async () => {
    expect(readFileSync(config, 'utf8')).toContain('// my servers');
    const r = await lro(['init', 'opencode', '--uninstall'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(original);
  });
});

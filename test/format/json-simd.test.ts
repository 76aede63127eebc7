// The JSON line checker: its embedded WebAssembly is exactly json.wat assembled, and it calls a line a JSON value
// exactly when JSON.parse accepts it: on JSONTestSuite's files, on the corpus, and on random mutations of JSON.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { JSON_WASM, JsonLineChecker } from '../../src/format/json-simd.js';
import { corpusDir } from '../helpers/corpus.js';
import { assembledWat, wasmInBundles } from '../helpers/wat.js';
import { seeded } from '../helpers/seeded.js';

const parses = (b: Buffer) => {
  try {
    JSON.parse(b.toString('latin1'));
    return true;
  } catch {
    return false;
  }
};

const rand = seeded(3).next;

describe('the JSON line checker', () => {
  it('embeds json.wat, assembled: in the module, and in the CLI bundle that ships', async () => {
    const wasm = await assembledWat('format/json.wat', { simd: true });
    expect(JSON_WASM).toBe(wasm);
    expect(wasmInBundles().get(wasm)).toContain('cli.cjs');
  });

  it('agrees with JSON.parse on every JSONTestSuite file that is one line of UTF-8', () => {
    const dir = join(corpusDir(), 'json-test-suite');
    const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(200);
    const c = new JsonLineChecker();
    let checked = 0;
    for (const f of files) {
      const b = readFileSync(join(dir, f));
      if (b.includes(0x0a) || !Buffer.from(b.toString('utf8')).equals(b)) continue;
      c.load(b, b.length);
      const ours = c.isValue(0, b.length);
      if (ours === null) continue; // too deep: JSON.parse decides
      expect(ours, f).toBe(parses(b));
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('agrees with JSON.parse on mutated JSON, line by line, and stops at the first line that is not a value', () => {
    const c = new JsonLineChecker();
    const seeds = ['{"a":1,"b":[true,false,null],"c":{"d":"e\\u00e9\\n"}}', '[1,-2.5e+10,0,-0,0.1E-2,"x\\"y"]', '"str \\\\ \\/ \\b\\f\\r\\t"', '{}', '[]', '123', '{"k": [ {"x" : [ ] } ] }', 'true', 'null'];
    const junk = ['', ' ', '\t', '\r', ',', ':', '{', '}', '[', ']', '"', '\\', 'u', '0', '01', '-', '.', 'e', '+', 'x', 'tru', '\x01', '\u00e9'];
    for (let round = 0; round < 20000; round++) {
      let s = seeds[rand() % seeds.length];
      for (let m = rand() % 3; m > 0; m--) {
        const at = rand() % (s.length + 1);
        const cut = rand() % 3;
        s = s.slice(0, at) + junk[rand() % junk.length] + s.slice(at + cut);
      }
      const b = Buffer.from(s);
      c.load(b, b.length);
      expect(c.isValue(0, b.length), JSON.stringify(s)).toBe(parses(b));
    }
    const lines = Buffer.from('{"a":1}\n[2]\n"x"\n\n{"b":2}\n');
    c.load(lines, lines.length);
    expect(c.values(0, lines.length)).toEqual({ stop: 16, count: 3 });
    expect(c.values(17, lines.length)).toEqual({ stop: lines.length, count: 1 });
  });

  it('agrees with JSON.parse on the corpus JSONL lines', () => {
    const c = new JsonLineChecker();
    const text = readFileSync(join(corpusDir(), 'shell-output/go-test-json.out'));
    c.load(text, text.length);
    let s = 0;
    for (let nl = text.indexOf(0x0a); nl >= 0; nl = text.indexOf(0x0a, s)) {
      if (nl > s) expect(c.isValue(s, nl)).toBe(parses(text.subarray(s, nl)));
      s = nl + 1;
    }
  });

  it('leaves a value nested deeper than its stack to JSON.parse', () => {
    const c = new JsonLineChecker();
    const deep = Buffer.from(`${'['.repeat(70000)}${']'.repeat(70000)}`);
    c.load(deep, deep.length);
    expect(c.isValue(0, deep.length)).toBe(null);
    const ok = Buffer.from(`${'['.repeat(60000)}${']'.repeat(60000)}`);
    c.load(ok, ok.length);
    expect(c.isValue(0, ok.length)).toBe(true);
  });
});

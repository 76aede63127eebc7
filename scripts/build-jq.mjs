// Copies jq-wasm (pinned at 3.0.0-jq-1.8.2) into dist/jq with its memory cap raised from 256 MB to 1 GB, so a
// `lro jq -s` slurp of 100 MB fits (jq needs about 5x its input). Two edits, checked against the pinned
// version's exact bytes so an upgrade fails the build instead of silently patching something else:
//   - the JS glue's heap limit: `var getHeapMax = () => 268435456;` -> 1 GB (below 2 GB, as the glue shifts
//     pointers as signed 32-bit numbers)
//   - the wasm memory section's maximum: 4096 pages -> 16383 pages (both LEB128 in two bytes: 0x80 0x20 -> 0xff 0x7f)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const GLUE_SHA256 = '2eed8c07b074476dac2e8975170fa9b4c5e9bb7bcc8c0893b81752beb12922a5';
const WASM_SHA256 = '27d493c06601e9cbc7112ef4198ee71a0dc3e9c9a4a1754e73888841da6c450a';
const HEAP_LINE = 'var getHeapMax = () => 268435456;';
const MAX_PAGES_AT = 1215; // memory section: id, size, count, flags, min (0x80 0x02), max (0x80 0x20)

const sha = (b) => createHash('sha256').update(b).digest('hex');

export function buildJq(outDir) {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('jq-wasm/package.json'));
  const glue = readFileSync(join(pkgDir, 'dist/index.mjs'));
  const wasm = Buffer.from(readFileSync(join(pkgDir, 'dist/build/jq.wasm')));
  if (sha(glue) !== GLUE_SHA256 || sha(wasm) !== WASM_SHA256) {
    throw new Error('jq-wasm is not the pinned 3.0.0-jq-1.8.2 build; update scripts/build-jq.mjs for the new version');
  }
  const text = glue.toString('utf8');
  if (text.split(HEAP_LINE).length !== 2) throw new Error('jq-wasm glue: heap limit not found exactly once');
  if (wasm[MAX_PAGES_AT] !== 0x80 || wasm[MAX_PAGES_AT + 1] !== 0x20) throw new Error('jq-wasm: memory maximum not where expected');
  wasm[MAX_PAGES_AT] = 0xff;
  wasm[MAX_PAGES_AT + 1] = 0x7f;
  new WebAssembly.Module(wasm); // still a valid module
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'jq.mjs'), text.replace(HEAP_LINE, 'var getHeapMax = () => 1073676288;'));
  writeFileSync(join(outDir, 'jq.wasm'), wasm);
}

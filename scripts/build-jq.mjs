// Copies jq-wasm (pinned at 3.0.0-jq-1.8.2) into dist/jq with a few exact edits, each checked against the
// pinned version's bytes so an upgrade fails the build instead of silently patching something else:
//   - the JS glue's heap limit: `var getHeapMax = () => 268435456;` -> 1 GB (below 2 GB, as the glue shifts
//     pointers as signed 32-bit numbers), so a `lro jq -s` slurp of 100 MB fits (jq needs about 5x its input)
//   - the wasm memory section's maximum: 4096 pages -> 16383 pages (both LEB128 in two bytes: 0x80 0x20 -> 0xff 0x7f)
//   - input: the glue feeds jq's stdin one byte per JS call; instead the input becomes an in-memory file
//     (`/stdin`, owned, not copied) that jq reads in bulk, and bytes (a Uint8Array) are taken as they are, so
//     lro passes stored records without decoding and re-encoding them (about a third of the time of a filter)
//   - output: the glue trims jq's stdout and stderr, which loses the leading spaces of `-r` output and the
//     exact bytes of `-j`; they are kept as jq wrote them
//   - streaming: each write of jq's stdout can go to a callback of lro's, which may stop jq there (see GLUE_EDITS)
// The patched glue is then turned into CommonJS (dist/jq/jq.cjs): required, it loads without starting Node's ES
// module loader, which costs about 18 ms on Node 20 (see scripts/build.mjs).
import { createHash } from 'node:crypto';
import { transform } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const GLUE_SHA256 = '2eed8c07b074476dac2e8975170fa9b4c5e9bb7bcc8c0893b81752beb12922a5';
const WASM_SHA256 = '27d493c06601e9cbc7112ef4198ee71a0dc3e9c9a4a1754e73888841da6c450a';
/** [exact text in the pinned glue, replacement]; see the top of this file. */
const GLUE_EDITS = [
  ['var getHeapMax = () => 268435456;', 'var getHeapMax = () => 1073676288;'],
  ['return encoder.encode(str);', 'return typeof str === "string" ? encoder.encode(str) : str;'],
  ['if (typeof input === "string") return input;', 'if (typeof input === "string" || input instanceof Uint8Array) return input;'],
  [
    'stdinBuffer = toByteArray(jsonString);\n          stdinBufferOffset = 0;',
    'FS.writeFile("/stdin", toByteArray(jsonString), { canOwn: true });\n          stdinBufferOffset = 0;',
  ],
  ['const args = [...flags, query, STDIN_PATH];', 'const args = [...flags, query, "/stdin"];'],
  [
    'stdinBuffer = new Uint8Array(0);\n            stdinBufferOffset = 0;\n          }\n        }\n        function runJqVersion',
    'FS.unlink("/stdin");\n          }\n        }\n        function runJqVersion',
  ],
  [
    'return { stdout: stdoutSink.toString().trim(), stderr: stderrSink.toString().trim(), exitCode };',
    'return { stdout: stdoutSink.toString(), stderr: stderrSink.toString(), exitCode };',
  ],
  // streaming: raw(input, query, flags, onStdout) hands each write of jq's stdout to onStdout(bytes, inputAt)
  // instead of collecting it (bytes: a view of jq's memory, valid during the call; inputAt(): how far jq has read
  // its input). An exception thrown by onStdout ends the call there (the instance is then not to be reused: jq
  // was stopped mid-write), carrying what jq wrote to stderr until then.
  ['function raw2(input, query, flags = []) {', 'function raw2(input, query, flags = [], onStdout) {'],
  ['return instance.rawSync(serializeInput(input), query, flags);', 'return instance.rawSync(serializeInput(input), query, flags, onStdout);'],
  [
    'rawSync(jsonString, query, flags = []) {\n          return runJq(jsonString, query, flags);',
    'rawSync(jsonString, query, flags = [], watch) {\n          onStdout = watch ?? null;\n          try {\n' +
      '            return runJq(jsonString, query, flags);\n          } finally {\n            onStdout = null;\n          }',
  ],
  [
    'const STDIN_PATH = "/dev/stdin";',
    'const STDIN_PATH = "/dev/stdin";\n        let onStdout = null;\n' +
      '        const inputAt = () => FS.streams.find((s) => s?.path === "/stdin")?.position ?? 0;',
  ],
  [
    'exitCode = Module.callMain(args);\n          } finally {',
    'exitCode = Module.callMain(args);\n          } catch (e) {\n' +
      '            if (e && typeof e === "object") e.stderr = stderrSink.toString();\n            throw e;\n          } finally {',
  ],
  [
    '}, (byte) => {\n            if (byte != null) stdoutSink.push(byte);\n          }, (byte) => {',
    '}, Object.assign((byte) => {\n            if (byte != null) stdoutSink.push(byte);\n          }, { bulk(heap, offset, length) {\n' +
      '            if (!onStdout) return false;\n            onStdout(new Uint8Array(heap.buffer, heap.byteOffset + offset, length), inputAt);\n' +
      '            return true;\n          } }), (byte) => {',
  ],
  [
    '}, write(stream, buffer, offset, length, pos) {\n            for (var i = 0; i < length; i++) {\n              try {\n                output(',
    '}, write(stream, buffer, offset, length, pos) {\n            if (output.bulk?.(buffer, offset, length)) return length;\n' +
      '            for (var i = 0; i < length; i++) {\n              try {\n                output(',
  ],
];
const MAX_PAGES_AT = 1215; // memory section: id, size, count, flags, min (0x80 0x02), max (0x80 0x20)

const sha = (b) => createHash('sha256').update(b).digest('hex');

export async function buildJq(outDir) {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('jq-wasm/package.json'));
  const glue = readFileSync(join(pkgDir, 'dist/index.mjs'));
  const wasm = Buffer.from(readFileSync(join(pkgDir, 'dist/build/jq.wasm')));
  if (sha(glue) !== GLUE_SHA256 || sha(wasm) !== WASM_SHA256) {
    throw new Error('jq-wasm is not the pinned 3.0.0-jq-1.8.2 build; update scripts/build-jq.mjs for the new version');
  }
  let text = glue.toString('utf8');
  for (const [from, to] of GLUE_EDITS) {
    if (text.split(from).length !== 2) throw new Error(`jq-wasm glue: not found exactly once: ${from}`);
    text = text.replace(from, to);
  }
  if (wasm[MAX_PAGES_AT] !== 0x80 || wasm[MAX_PAGES_AT + 1] !== 0x20) throw new Error('jq-wasm: memory maximum not where expected');
  wasm[MAX_PAGES_AT] = 0xff;
  wasm[MAX_PAGES_AT + 1] = 0x7f;
  new WebAssembly.Module(wasm); // still a valid module
  mkdirSync(outDir, { recursive: true });
  const cjs = await transform(text, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': '__jqModuleUrl' },
    banner: "var __jqModuleUrl = require('node:url').pathToFileURL(__filename).href;",
    logLevel: 'warning',
  });
  writeFileSync(join(outDir, 'jq.cjs'), cjs.code);
  writeFileSync(join(outDir, 'jq.wasm'), wasm);
}

// `node --import ./module-trace.mjs`: records the URL of every module the process loads, one a line, in the file
// named by $LRO_MODULE_TRACE: ES modules through loader hooks (they run on their own thread, so they write the
// file themselves), CommonJS modules (the built CLI is one) from require's cache when the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.LRO_MODULE_TRACE;
register('./module-trace-hooks.mjs', import.meta.url, { data: file });
if (file) {
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => appendFileSync(file, Object.keys(cache).map((p) => `${pathToFileURL(p).href}\n`).join('')));
}

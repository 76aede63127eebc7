// `node --import ./module-trace.mjs`: records the URL of every ES module the process loads, one a line, in the
// file named by $LRO_MODULE_TRACE (the hooks run on their own thread, so they write the file themselves).
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url, { data: process.env.LRO_MODULE_TRACE });

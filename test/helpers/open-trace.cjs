// `node --require ./open-trace.cjs`: the token tables a command reads, for tests of when lro reads the rank table.
// At exit, one JSON line in the file named by $LRO_OPEN_TRACE: {"opened": [the base names of the files opened
// under a ranks/ folder, in order]}.
'use strict';
const fs = require('node:fs');
const file = process.env.LRO_OPEN_TRACE;
if (file) {
  const opened = [];
  const openSync = fs.openSync;
  fs.openSync = function (path, ...rest) {
    const p = String(path);
    if (/[\\/]ranks[\\/][^\\/]+$/.test(p)) opened.push(p.replace(/^.*[\\/]/, ''));
    return openSync.call(this, path, ...rest);
  };
  process.on('exit', () => fs.appendFileSync(file, `${JSON.stringify({ opened })}\n`));
}

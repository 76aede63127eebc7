// The floor of any Node program that searches a file: start Node, read the file once in 1 MB reads, nothing else.
//   node bench/read-floor.mjs FILE
import { closeSync, openSync, readSync } from 'node:fs';

const fd = openSync(process.argv[2], 'r');
const buf = Buffer.allocUnsafe(1 << 20);
let total = 0;
for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) total += n;
closeSync(fd);
console.log(total);

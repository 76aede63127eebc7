// `node --import ./read-trace.mjs`: counts the bytes the process reads from stored results (`lro-*.jsonl`) with
// fs.readSync, what lro's readers use, and writes `BYTES PEAK_RSS_KB` to $LRO_READ_TRACE when the process exits,
// so a test can tell a reader that seeks from one that scans, and see how much memory it took.
import fs from 'node:fs';
import { basename } from 'node:path';

const file = process.env.LRO_READ_TRACE;
if (file) {
  const readSync = fs.readSync;
  let total = 0;
  fs.readSync = function (fd, ...args) {
    const got = readSync.call(this, fd, ...args);
    let path = '';
    try {
      path = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // not a file descriptor of a path
    }
    if (/^lro-.*\.jsonl$/.test(basename(path))) total += got;
    return got;
  };
  process.on('exit', () => fs.writeFileSync(file, `${total} ${peakKb()}`));
}

// The process's own peak: VmHWM, the high-water mark of the memory this program mapped since exec. Not
// resourceUsage().maxRSS, which Linux carries across exec from the forked parent: a test runner holding 170 MB
// made every lro it started report 170 MB.
function peakKb() {
  try {
    const hwm = /^VmHWM:\s*(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // no /proc: not Linux
  }
  return process.resourceUsage().maxRSS;
}

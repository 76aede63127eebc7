// Writes benchmark inputs of a given size from the corpus, deterministically:
//   node bench/make-data.mjs text  SIZE OUT   loghub logs, LF line endings, repeated
//   node bench/make-data.mjs jsonl SIZE OUT   JSON records (go test events, GitHub events, tweets, phone listings), one per line, repeated
//   node bench/make-data.mjs json  SIZE OUT   the same records in one pretty-printed document, {"items": [...]} with
//                                             an indent of 2, as `kubectl get -o json` prints
// Files are cut at a line end at or below SIZE bytes.
import { openSync, readFileSync, readdirSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

const [kind, sizeArg, out] = process.argv.slice(2);
const size = Number(sizeArg);
const corpus = new URL('../fixtures/corpus/', import.meta.url).pathname;

function textUnit() {
  const dir = join(corpus, 'loghub');
  const parts = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => {
      const t = readFileSync(join(dir, f), 'utf8').replace(/\r\n/g, '\n');
      return t.endsWith('\n') ? t : `${t}\n`;
    });
  return Buffer.from(parts.join(''));
}

function jsonlUnit() {
  const lines = [];
  lines.push(...readFileSync(join(corpus, 'shell-output/go-test-json.out'), 'utf8').split('\n').filter(Boolean));
  lines.push(...JSON.parse(readFileSync(join(corpus, 'json-docs/github_events.json'), 'utf8')).map((e) => JSON.stringify(e)));
  lines.push(...JSON.parse(readFileSync(join(corpus, 'json-docs/twitter.json'), 'utf8')).statuses.map((s) => JSON.stringify(s)));
  lines.push(...readFileSync(join(corpus, 'json-docs/amazon_cellphones.ndjson'), 'utf8').split('\n').filter(Boolean));
  return Buffer.from(`${lines.join('\n')}\n`);
}

if (kind === 'json') {
  // records indented by 4 inside the items array, whole records only, up to SIZE bytes with the closing lines
  const records = jsonlUnit().toString('utf8').split('\n').filter(Boolean).map((l) => JSON.stringify(JSON.parse(l), null, 2).replace(/\n/g, '\n    '));
  const fd = openSync(out, 'w');
  const open = '{\n  "items": [\n', close = '\n  ]\n}\n';
  writeSync(fd, open);
  let written = open.length + close.length;
  for (let i = 0; ; i++) {
    const piece = `${i > 0 ? ',\n' : ''}    ${records[i % records.length]}`;
    const n = Buffer.byteLength(piece);
    if (written + n > size) break;
    writeSync(fd, piece);
    written += n;
  }
  writeSync(fd, close);
  closeSync(fd);
  console.log(`${out}: ${written} bytes`);
  process.exit(0);
}

const unit = kind === 'text' ? textUnit() : jsonlUnit();
const fd = openSync(out, 'w');
let written = 0;
while (written + unit.length <= size) {
  writeSync(fd, unit);
  written += unit.length;
}
const rest = unit.subarray(0, size - written);
const cut = rest.lastIndexOf(0x0a) + 1;
writeSync(fd, rest.subarray(0, cut));
closeSync(fd);
console.log(`${out}: ${written + cut} bytes`);

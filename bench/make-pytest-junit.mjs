// Two runs of one pytest suite as JUnit XML (`pytest --junitxml`), for the JUnit test-run kind and `lro diff` of
// two reports (test/describe/junit.test.ts, test/e2e/diff.test.ts): 400 generated tests, 10 skipped; the first run
// fails cases 150, 260 and 377; the second fixes 150 and breaks test_error_handling_30 with a KeyError. pytest writes
// a report on few, long lines: a line ends only inside a failure's text. Real `pytest -p no:cacheprovider` runs, the
// scratch path and host name scrubbed.
// The first run is also kept as pytest prints it without -v (pytest-progress.txt: a character per test on its progress
// lines, the failures' sections, the short summary).
// Usage: node bench/make-pytest-junit.mjs [DIR]   (default fixtures/outputs: pytest-junit.xml, pytest-junit-after.xml,
// pytest-progress.txt)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = process.argv[2] ?? join(root, 'fixtures/outputs');

function suite(after) {
  const lines = ['import pytest', ''];
  for (let i = 0; i < 400; i++) {
    if ([150, 260, 377].includes(i)) {
      const broken = !(after && i === 150);
      lines.push(`def test_parse_case_${i}():`, `    assert ${i}${broken ? ' + 1' : ''} == ${i}, "error: off by one"`, '');
    } else if (i % 41 === 7) lines.push('@pytest.mark.skip(reason="needs network")', `def test_fetch_${i}():`, '    pass', '');
    else if (after && i === 30) lines.push(`def test_error_handling_${i}():`, `    assert {"code": ${i}}["status"] == ${i}`, '');
    else lines.push(`def test_error_handling_${i}():`, `    assert str(${i}).isdigit()`, '');
  }
  return lines.join('\n');
}

for (const [name, after] of [['pytest-junit.xml', false], ['pytest-junit-after.xml', true]]) {
  const scratch = mkdtempSync(join(tmpdir(), 'lro-pytest-'));
  writeFileSync(join(scratch, 'test_suite.py'), suite(after));
  const r = spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=report.xml', 'test_suite.py'], { cwd: scratch, encoding: 'utf8' });
  if (r.error) throw r.error;
  const xml = readFileSync(join(scratch, 'report.xml'), 'utf8');
  writeFileSync(join(dir, name), xml.split(scratch).join('/home/user/project').replace(/hostname="[^"]*"/, 'hostname="build"'));
  if (!after) {
    const plain = spawnSync('python3', ['-m', 'pytest', '-p', 'no:cacheprovider', 'test_suite.py'], { cwd: scratch, encoding: 'utf8' });
    // (its header names the machine: python, plugins, the scratch folder; its last line the time taken)
    const text = plain.stdout
      .split(scratch)
      .join('/home/user/project')
      .replace(/^(platform|benchmark|plugins|cachedir):.*\n/gm, '')
      .replace(/ in [\d.]+s /, ' in 1.00s ');
    writeFileSync(join(dir, 'pytest-progress.txt'), text);
  }
  rmSync(scratch, { recursive: true, force: true });
}

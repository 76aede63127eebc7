// The next run of the test suite behind fixtures/outputs/pytest-v.txt, for `lro diff` of two test runs
// (test/e2e/diff.test.ts): the same 60 generated tests (as bench/make-outputs.mjs writes them) after a change
// that fixes test_parse_case_5, leaves cases 22, 39 and 56 failing and breaks test_error_handling_30 with a
// KeyError. A real `pytest -v -p no:cacheprovider` run, its scratch path scrubbed.
// Usage: node bench/make-pytest-after.mjs [OUT]   (default fixtures/outputs/pytest-v-after.txt)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = process.argv[2] ?? join(root, 'fixtures/outputs/pytest-v-after.txt');
const scratch = mkdtempSync(join(tmpdir(), 'lro-pytest-'));
const lines = ['import pytest', ''];
for (let i = 0; i < 60; i++) {
  if (i === 5) lines.push(`def test_parse_case_${i}():`, `    assert ${i} == ${i}, "error: off by one"`, '');
  else if (i % 17 === 5) lines.push(`def test_parse_case_${i}():`, `    assert ${i} + 1 == ${i}, "error: off by one"`, '');
  else if (i % 13 === 7) lines.push('@pytest.mark.skip(reason="needs network")', `def test_fetch_${i}():`, '    pass', '');
  else if (i === 30) lines.push(`def test_error_handling_${i}():`, `    assert {"code": ${i}}["status"] == ${i}`, '');
  else lines.push(`def test_error_handling_${i}():`, `    assert str(${i}).isdigit()`, '');
}
writeFileSync(join(scratch, 'test_sample.py'), lines.join('\n'));
const r = spawnSync('pytest', ['-v', '-p', 'no:cacheprovider', 'test_sample.py'], { cwd: scratch, encoding: 'utf8' });
if (r.error) throw r.error;
writeFileSync(out, r.stdout.split(scratch).join('/home/user/project').replace(/\/root\b/g, '/home/user'));
rmSync(scratch, { recursive: true, force: true });

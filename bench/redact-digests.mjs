// Writes the digests set (test/secrets/fixtures/digests.txt) to stdout: 1,200 lines that hold a digest, a UUID
// or an integrity string in the places output shows them (lockfiles, git, docker, checksums, request ids, JSON
// logs), none of them a secret. `--redact` must replace nothing in it (bench/redact-recall.sh, and
// test/secrets/keyed.test.ts). Deterministic: every value is a hash of a counter.
import { createHash } from 'node:crypto';

const hash = (algo, n, enc = 'hex') => createHash(algo).update(`lro digests ${n}`).digest(enc);
const uuid = (n) => {
  const h = hash('sha1', `uuid ${n}`);
  const v = ((parseInt(h[16], 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${v}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const pkg = (n) => ['lodash', 'react-dom', 'esbuild', 'vitest', '@types/node', 'semver', 'chalk', 'zod'][n % 8];
/** One line per kind; each kind is called with n = 0..149 (8 kinds × 150 = 1,200 lines). */
const kinds = [
  (n) => `      "integrity": "sha512-${hash('sha512', n, 'base64')}",`,
  (n) =>
    n % 2
      ? `  integrity sha512-${hash('sha512', `y${n}`, 'base64')}`
      : `  integrity sha1-${hash('sha1', `y${n}`, 'base64')}`,
  (n) =>
    `{"ts":"2026-11-23T10:${String(n % 60).padStart(2, '0')}:00Z","request_id":"${uuid(n)}",` +
    `"trace_id":"${hash('md5', n)}","span_id":"${hash('md5', `s${n}`).slice(0, 16)}","status":200}`,
  (n) =>
    [
      `Correlation-Id: ${uuid(`c${n}`).toUpperCase()}`,
      `X-Request-Id: ${uuid(`i${n}`)}`,
      `"session_id": "${uuid(`s${n}`)}",`,
    ][n % 3],
  (n) =>
    [
      `commit ${hash('sha1', `g${n}`)}`,
      `${hash('sha1', `o${n}`).slice(0, 7)} Merge pull request #${n} from x/y`,
      `Merge: ${hash('sha1', `m${n}`).slice(0, 7)} ${hash('sha1', `p${n}`).slice(0, 7)}`,
    ][n % 3],
  (n) =>
    [
      `Digest: sha256:${hash('sha256', `d${n}`)}`,
      `docker.io/library/node@sha256:${hash('sha256', `i${n}`)}`,
      `${pkg(n)}: Pull complete ${hash('sha256', `l${n}`).slice(0, 12)}`,
    ][n % 3],
  (n) =>
    [
      `${hash('sha256', `f${n}`)}  ${pkg(n).replace('/', '-')}-${n}.tgz`,
      `${pkg(n)}==1.${n}.0 --hash=sha256:${hash('sha256', `p${n}`)}`,
      `golang.org/x/text v0.${n}.0 h1:${hash('sha256', `h${n}`, 'base64')}`,
    ][n % 3],
  (n) =>
    [
      `"etag": "\\"${hash('md5', `e${n}`)}\\"",`,
      `"checksum": "sha256:${hash('sha256', `k${n}`)}",`,
      `"md5": "${hash('md5', `ck${n}`)}", "object": "uploads/${uuid(`o${n}`)}.png"`,
    ][n % 3],
];
const lines = [];
for (let n = 0; n < 150; n++) for (const k of kinds) lines.push(k(n));
process.stdout.write(`${lines.join('\n')}\n`);

// ripgrep as the reference for lro grep's output: rg run on the original file, and both outputs put in one shape.
import { spawnSync } from 'node:child_process';

/** rg -n on `file` with `args` (no heading, no colour), as lro grep prints. */
export function rgOn(file: string, args: string[]) {
  return spawnSync('rg', ['-n', '--no-heading', '--color=never', ...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

/**
 * Output with each record longer than 1000 characters as its number only: lro shows those as windows around the
 * matches (`N:[start-end/length] text`, documented), rg whole; every other byte is compared.
 */
export const shape = (out: string) =>
  out
    .split('\n')
    .map((l) => {
      const m = /^(\d+)([:-])/.exec(l);
      return m && (l.length > 1000 + m[0].length || /^\d+[:-]\[\d+-\d+\/\d+\] /.test(l)) ? `${m[0]}<long>` : l;
    })
    .filter((l, i, all) => i === 0 || !l.endsWith('<long>') || l !== all[i - 1])
    .join('\n');

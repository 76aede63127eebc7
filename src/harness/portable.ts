// lro named by PATH, as a project's shared settings name it (`lro mcp`, Gemini CLI's `lro-hook __gemini-hook`): no
// path of the machine that wrote the file, so every teammate's own lro runs. Whether that works on this machine:
// the names found on PATH and each one leading to an lro (lro.js beside the file a symlink chain ends at, as npm
// links package.json "bin"), and what to run when it does not. `lro init --project` says it on stderr (the file is
// still written: it is right for the team), `lro doctor` as a failed check.
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { binDir } from './lro-bin.js';

/** The first executable named `name` on PATH, or null. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** Why `name` (lro or lro-hook) does not lead to an lro on this PATH, or null when it does. */
export function portableProblem(name: string, env: NodeJS.ProcessEnv): string | null {
  const found = onPath(name, env);
  if (!found) return `${name} is not on PATH`;
  let real: string;
  try {
    real = realpathSync(found);
  } catch {
    return `${found} is a broken link`;
  }
  try {
    accessSync(join(dirname(real), 'lro.js'), constants.R_OK);
    return null;
  } catch {
    return `${found} is not lro's (no lro.js beside ${real})`;
  }
}

/**
 * What puts `names` (lro, lro-hook: the ones missing) on PATH: npm installs this folder (lro is not published to
 * npm), or a link for each, to this installation's files.
 */
export function pathFix(names: string[]): string {
  const bin = binDir();
  const links = names.map((n) => `ln -s ${join(bin, n === 'lro' ? 'lro.js' : n)} ~/.local/bin/${n}`).join(' and ');
  return `npm install -g ${dirname(bin)} (puts lro and lro-hook on PATH), or ${links}`;
}

/** What puts lro and lro-hook on PATH. */
export function portableFix(): string {
  return pathFix(['lro', 'lro-hook']);
}

/**
 * The stderr line of `lro init --project` when the names the written file uses do not lead to lro here (null when
 * they do): the file is right for the team, but on this machine the harness would not find lro.
 */
export function portableWarning(names: string[], env: NodeJS.ProcessEnv, effect: string): string | null {
  const absent = names.filter((n) => !onPath(n, env));
  const problems = names.filter((n) => !absent.includes(n)).map((n) => portableProblem(n, env)).filter((p) => p !== null);
  // "lro-hook and lro are not on PATH", not the same words twice
  if (absent.length) problems.unshift(`${absent.join(' and ')} ${absent.length > 1 ? 'are' : 'is'} not on PATH`);
  if (!problems.length) return null;
  return `lro: warning: ${problems.join('; ')}: the project's file names lro by PATH, so ${effect} on this ` +
    `machine; fix: ${portableFix()}`;
}

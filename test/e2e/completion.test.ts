// End-to-end: `lro completion bash|zsh|fish` loads in each shell (zsh and fish checks run where the shell is
// installed; bash always), completes subcommands, options and stored ids, and follows the program's definition.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandSpecs } from '../../src/faces/completion.js';
import { allCommands } from '../../src/faces/program.js';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';

let root: string;
let shellEnv: Record<string, string>;
let id: string;

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** The program's commands as the command table declares them (nothing runs). */
const program = allCommands;

/** Runs a script in a shell with `lro` on PATH and the test's store. */
function sh(shell: string, script: string) {
  const r = spawnSync(shell, ['-c', script], { env: shellEnv, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  root = tempDir();
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'lro'));
  const home = join(root, 'home');
  mkdirSync(home);
  shellEnv = {
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    LRO_DIR: join(root, 'store'),
    TERM: 'dumb',
  };
  const r = await lro(['offload', '--force', '--operation', 'fixture'], { input: 'one\ntwo\n', env: { LRO_DIR: shellEnv.LRO_DIR } });
  id = JSON.parse(r.out).id as string;
});
afterAll(() => cleanup(root));

/** Completes a command line in bash: words as bash splits them (at ':' and '=' too), the last being completed. */
function bashComplete(line: string): string[] {
  const words = line.split(/(?<=[:=])|(?=[:=])| +/);
  const script = `source <(lro completion bash)
COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}
_lro; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = sh('bash', script);
  expect(r.err).toBe('');
  return r.out.split('\n').filter(Boolean);
}

describe('lro completion bash', () => {
  it('loads cleanly: bash -c "source <(lro completion bash)"', () => {
    const r = sh('bash', 'source <(lro completion bash) && complete -p lro');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/complete -F _lro lro/);
  });

  it('completes subcommands from the program: lro g offers every command starting with g', async () => {
    const expected = commandSpecs(await program())
      .map((c) => c.name)
      .filter((n) => n.startsWith('g'));
    expect(expected).toContain('grep');
    expect(bashComplete('lro g').sort()).toEqual(expected.sort()); // gc too once it is registered
    expect(bashComplete('lro ')).toEqual(commandSpecs(await program()).filter((c) => !c.name.includes(' ')).map((c) => c.name));
    expect(bashComplete('lro ')).not.toContain('__complete-ids');
  });

  it('completes options, their choices, and the values of --opt=value', () => {
    expect(bashComplete('lro grep --rec')).toEqual(['--records']);
    expect(bashComplete('lro read --he')).toEqual(['--head', '--help']);
    expect(bashComplete('lro offload --descriptor ')).toEqual(['json', 'text']);
    expect(bashComplete('lro offload --descriptor=t')).toEqual(['text']);
    expect(bashComplete('lro completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(bashComplete('lro -')).toEqual(['-V', '--version', '-h', '--help']);
  });

  it('completes stored ids where a command takes one, after options with values', () => {
    expect(bashComplete('lro read ')).toEqual(['last', id]);
    expect(bashComplete(`lro read ${id.slice(0, 20)}`)).toEqual([id]);
    expect(bashComplete('lro grep --records 1:3 -C 2 ')).toEqual(['last', id]);
    expect(bashComplete('lro grep last ')).toEqual([]); // the pattern: nothing to offer
    expect(bashComplete(`lro info --dir ${join(root, 'elsewhere')} `)).toEqual(['last']);
  });

  it('completes a command name after lro run', () => {
    expect(bashComplete('lro run --force -- bas')).toContain('bash');
  });

  it('completes a subcommand of a subcommand, then its own options (lro mcp proxy)', () => {
    expect(bashComplete('lro mcp ')).toEqual(['proxy']);
    expect(bashComplete('lro mcp --tok')).toEqual(['--token-file']);
    expect(bashComplete('lro mcp proxy --thr')).toEqual(['--threshold', '--threshold-for']);
    expect(bashComplete('lro mcp proxy --descriptor ')).toEqual(['text', 'json']);
    expect(bashComplete('lro mcp proxy --exclude read_file -- bas')).toContain('bash');
  });
});

describe('lro completion zsh and fish', () => {
  it.skipIf(!has('zsh'))('zsh: loads after compinit and registers _lro', () => {
    const r = sh('zsh', 'autoload -Uz compinit && compinit -u -D && source <(lro completion zsh) && print -r -- $_comps[lro]');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(r.out.trim()).toBe('_lro');
    expect(sh('zsh', 'zsh -n <(lro completion zsh)').code).toBe(0);
  });

  it.skipIf(!has('fish'))('fish: loads and completes subcommands, options and ids', () => {
    const complete = (line: string) => {
      const r = sh('fish', `lro completion fish | source; and complete -C ${JSON.stringify(line)}`);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe('');
      return r.out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
    };
    expect(complete('lro g')).toContain('grep');
    expect(complete('lro read --he')).toEqual(['--head', '--help']);
    expect(complete('lro read ')).toEqual(['last', id]); // newest first, as listed
    expect(complete('lro grep --records 1:3 ')).toEqual(['last', id]);
    expect(complete('lro completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(complete('lro mcp ')).toEqual(['proxy']);
    expect(complete('lro mcp proxy --ex')).toEqual(['--exclude']);
    expect(complete('lro mcp proxy --descriptor ')).toEqual(['json', 'text']);
  });
});

describe('lro completion: generated from the program', () => {
  it('names every visible subcommand and every long option in each script', async () => {
    const specs = commandSpecs(await program());
    for (const shell of ['bash', 'zsh', 'fish']) {
      const script = execFileSync(process.execPath, [BIN, 'completion', shell], { encoding: 'utf8' });
      expect(specs.map((c) => c.name)).toContain('mcp proxy');
      for (const c of specs) {
        expect(script, `${shell}: ${c.name}`).toContain(c.name.split(' ').at(-1));
        for (const o of c.options) if (o.long) expect(script, `${shell}: ${c.name} ${o.long}`).toContain(shell === 'fish' ? `-l ${o.long.slice(2)}` : o.long);
      }
    }
  });

  it('rejects an unknown shell with exit 2 and one line', async () => {
    const r = await lro(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: .*tcsh.*\n$/);
  });

  it('lists ids newest first for the scripts, and only "last" without a store', async () => {
    const r = await lro(['__complete-ids'], { env: { LRO_DIR: shellEnv.LRO_DIR } });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`last\tthe newest result\n${id}\tfixture\n`);
    const none = await lro(['__complete-ids', '--dir', join(root, 'no-store')]);
    expect(none.code).toBe(0);
    expect(none.out).toBe('last\tthe newest result\n');
  });
});

// Codex: a PreToolUse hook that rewrites each shell command through lro's shell prefix (hook.ts, run by
// bin/lro-hook), in hooks.json, and lro's MCP server in config.toml (settings.ts, init.ts); its doctor (doctor.ts).
import { existsSync } from 'node:fs';
import { homeFolder } from '../check.js';
import type { Harness } from '../harness.js';
import { onPath } from '../portable.js';
import { codexChecks } from './doctor.js';
import { codexAdapter } from './init.js';

export const codex: Harness = {
  name: 'codex',
  label: 'Codex',
  command: 'codex',
  found: (env) =>
    (onPath('codex', env) ? 'codex on PATH' : null) ??
    (env.CODEX_HOME && existsSync(env.CODEX_HOME) ? env.CODEX_HOME : null) ??
    homeFolder(env, '.codex'),
  checks: codexChecks,
  adapter: codexAdapter,
};

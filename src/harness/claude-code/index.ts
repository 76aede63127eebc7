// Claude Code: a shell prefix for every Bash call (CLAUDE_CODE_SHELL_PREFIX, bin/lro-shell-prefix) and a
// PostToolUse hook for MCP results (hook.ts), in settings.json (settings.ts, init.ts); its doctor (doctor.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { homeFolder } from '../check.js';
import type { Harness } from '../harness.js';
import { onPath } from '../portable.js';
import { claudeCodeChecks } from './doctor.js';
import { claudeCodeAdapter } from './init.js';

export const claudeCode: Harness = {
  name: 'claude-code',
  label: 'Claude Code',
  command: 'claude',
  found: (env) =>
    (onPath('claude', env) ? 'claude on PATH' : null) ??
    (env.CLAUDE_CONFIG_DIR && existsSync(env.CLAUDE_CONFIG_DIR) ? env.CLAUDE_CONFIG_DIR : null) ??
    homeFolder(env, '.claude') ??
    (existsSync(join('.claude', 'settings.local.json')) ? '.claude/settings.local.json' : null) ??
    (existsSync(join('.claude', 'settings.json')) ? '.claude/settings.json' : null),
  checks: claudeCodeChecks,
  adapter: claudeCodeAdapter,
};

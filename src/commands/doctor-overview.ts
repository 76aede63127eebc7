// `lro doctor` with no harness named: every harness lro knows, found on this machine or not, with what lro
// installed there and whether it works, one line each; `lro doctor HARNESS` gives every check of one of them.
import type { Check } from '../harness/check.js';
import type { HarnessDoctor } from '../harness/harness.js';

/** One harness in the overview. */
export interface HarnessStatus {
  harness: string;
  found: string | null;
  /** lro is installed there (false: found, lro not installed; null: not found, not looked at). */
  installed: boolean | null;
  healthy: boolean;
  checks: Check[];
}

/** The status of every harness (only found ones are checked). */
export async function statuses(harnesses: HarnessDoctor[], env: NodeJS.ProcessEnv): Promise<HarnessStatus[]> {
  const all: HarnessStatus[] = [];
  for (const h of harnesses) all.push(await status(h, env));
  return all;
}

async function status(h: HarnessDoctor, env: NodeJS.ProcessEnv): Promise<HarnessStatus> {
  const found = h.found(env);
  if (!found) return { harness: h.name, found, installed: null, healthy: false, checks: [] };
  const checks = await h.checks(env);
  const installed = !checks.some((c) => c.absent);
  return { harness: h.name, found, installed, healthy: installed && checks.every((c) => c.ok), checks };
}

/** Healthy: lro is installed somewhere, and works wherever it is installed. */
export function overallHealthy(all: HarnessStatus[]): boolean {
  const installed = all.filter((s) => s.installed);
  return installed.length > 0 && installed.every((s) => s.healthy);
}

/** The overview as text: one line per found harness, the rest named on one line, then what to run next. */
export function overviewText(all: HarnessStatus[], harnesses: HarnessDoctor[]): string {
  const width = Math.max(...harnesses.map((h) => h.name.length));
  const lines: string[] = [];
  for (const s of all.filter((x) => x.found)) {
    const name = s.harness.padEnd(width);
    if (!s.installed) {
      lines.push(`-   ${name}  found (${s.found}), lro not installed: lro init ${s.harness}`);
    } else if (s.healthy) {
      lines.push(`ok  ${name}  lro installed and works (every check: lro doctor ${s.harness})`);
    } else {
      const bad = s.checks.find((c) => !c.ok)!;
      const fix = bad.fix ? `; fix: ${bad.fix}` : '';
      lines.push(`X   ${name}  lro installed, does not work: ${bad.name}: ${bad.detail}${fix}`);
    }
  }
  const missing = all.filter((s) => !s.found).map((s) => s.harness);
  if (missing.length) lines.push(`not found on this machine: ${missing.join(', ')}`);
  const installed = all.filter((s) => s.installed);
  if (installed.length === 0) {
    lines.push('lro is not installed in any harness: lro init HARNESS (one of the names above)');
  } else {
    const working = installed.filter((s) => s.healthy).length;
    lines.push(`lro works in ${working} of the ${installed.length} harnesses it is installed in.`);
  }
  return `${lines.join('\n')}\n`;
}


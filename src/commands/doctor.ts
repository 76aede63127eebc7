// `lro doctor [HARNESS]`: is lro wired into a harness, and does it work? With none named, a line for every harness
// (doctor-overview.ts); with one, every check of it (each harness's own doctor.ts in harness/<name>/). Each finding
// comes with the command that fixes it. Exit 0 healthy, 1 not.
import type { CommandDef } from './command.js';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import type { Check } from '../harness/check.js';
import { HARNESS_LIST, harnessNamed } from '../harness/list.js';
import { overallHealthy, overviewText, statuses } from './doctor-overview.js';
import DOCTOR_HELP from 'help:doctor';

export type { Check };

type DoctorOptions = { harness?: string; json?: boolean };

export async function runDoctor(o: DoctorOptions, io: IO): Promise<number> {
  if (o.harness === undefined) return runOverview(o, io);
  const doctor = harnessNamed(o.harness);
  if (!doctor) {
    const names = HARNESS_LIST.map((h) => h.name).join(', ');
    throw new UsageError(`unknown harness '${o.harness}': lro doctor with one of ${names}, or none for all`);
  }
  const harness = doctor.name;
  const checks = await doctor.checks(io.env);
  const healthy = checks.every((c) => c.ok);
  if (o.json) {
    await io.stdout.write(`${JSON.stringify({ harness, healthy, checks }, null, 2)}\n`);
  } else {
    const mark = (c: Check) => (c.ok ? (c.warning ? '!' : 'ok') : 'X');
    const lines = checks.map((c) => `${mark(c)}  ${c.name}: ${c.detail}${c.fix ? `\n    fix: ${c.fix}` : ''}`);
    const name = doctor.label;
    lines.push(healthy ? `lro works in ${name}.` : `lro does not work in ${name} yet: see the fixes above.`);
    await io.stdout.write(`${lines.join('\n')}\n`);
  }
  return healthy ? 0 : 1;
}

/** `lro doctor` with no harness named: every harness, one line each. */
async function runOverview(o: DoctorOptions, io: IO): Promise<number> {
  const all = await statuses(HARNESS_LIST, io.env);
  const healthy = overallHealthy(all);
  if (o.json) await io.stdout.write(`${JSON.stringify({ healthy, harnesses: all }, null, 2)}\n`);
  else await io.stdout.write(overviewText(all, HARNESS_LIST));
  return healthy ? 0 : 1;
}

/** `lro doctor`. */
export const doctorCommand: CommandDef<{ harness?: string; json?: boolean }> = {
  name: 'doctor',
  description:
    'check that lro is wired into the agent harnesses found here and works there (with no harness named: every ' +
    "one, a line each); for one harness: its version, settings files, hook trust, lro run on samples, lro's MCP " +
    'server started, PATH',
  arguments: [
    {
      name: 'harness',
      description: 'the harness to check in detail (default: a line for every harness found)',
      choices: HARNESS_LIST.map((h) => h.name),
      optional: true,
    },
  ],
  options: [{ flags: '--json', description: 'print the checks as JSON' }],
  examples: ['lro doctor', 'lro doctor claude-code --json', 'lro doctor codex', 'lro doctor gemini', 'lro doctor cursor'],
  notes: DOCTOR_HELP,
  run: (o, io) => runDoctor(o, io),
};

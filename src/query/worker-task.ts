// `lro where` and `lro count` in a guarded worker (a regular expression that could run away): the same
// planning and printing as on the main thread, output sent through the guard's channel.
import type { GuardChannel, GuardedTask } from '../engines/guard.js';
import type { ResultFile } from '../format/reader.js';
import { printCount } from '../render/count-output.js';
import { printWhere } from '../render/where-output.js';
import { planCount, type CountOptions } from './count.js';
import { planWhere, type WhereOptions } from './where.js';

/** Runs a where or count task; returns its exit code. */
export async function runQueryTask(rf: ResultFile, data: GuardedTask & { task: 'where' | 'count'; args: string[] }, channel: GuardChannel): Promise<number> {
  if (data.task === 'where') {
    const plan = planWhere(data.args, data.options as WhereOptions, rf.header.count);
    return printWhere(rf, plan, data.env, channel.write, channel.writeErr, channel.tick);
  }
  const plan = planCount(data.options as CountOptions, rf.header.content_type, rf.header.count);
  return printCount(rf, plan, data.env, channel.write, channel.writeErr, channel.tick);
}

// `--stream stdout|stderr|both` of the readers: the records of one stream of a `lro run` result, which stores
// both (format/streams.ts). A result without stream information cannot answer it, and says so rather than
// pretend every record came from stdout.
import type { OptionDef } from './command.js';
import { LroError } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { STREAM_CHOICES, streamsOf, type StreamMap, type StreamName } from '../format/streams.js';

export const STREAM_OPTION: OptionDef = {
  flags: '--stream <name>',
  description: 'only the records of one stream of an lro run result: stdout, stderr, or both (default)',
  choices: STREAM_CHOICES,
  mcp: '',
};

/** The stream map of rf when the records are filtered by stream, else null; a result without streams is an error. */
export function streamFilter(rf: ResultFile, choice: string | undefined): { map: StreamMap; choice: StreamName } | null {
  if (choice === undefined || choice === 'both') return null;
  const map = streamsOf(rf.header);
  if (!map) {
    throw new LroError(
      `result ${rf.header.id} does not record which stream its lines came from (only lro run keeps stderr apart): drop --stream`,
    );
  }
  return { map, choice: choice as StreamName };
}

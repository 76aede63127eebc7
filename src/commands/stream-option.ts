// `--stream stdout|stderr|both` of the readers: the records of one stream of a `lro run` result, which stores
// both (format/streams.ts; the filter: query/view.ts streamFilter).
import type { OptionDef } from './command.js';
import { STREAM_CHOICES } from '../format/streams.js';

export const STREAM_OPTION: OptionDef = {
  flags: '--stream <name>',
  description: 'only the records of one stream of an lro run result: stdout, stderr, or both (default)',
  choices: STREAM_CHOICES,
  mcp: '',
};

// Module loader hooks for module-trace.mjs: append each loaded URL to the trace file.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data;
}

export async function load(url, context, next) {
  if (file) appendFileSync(file, `${url}\n`);
  return next(url, context);
}

// The error of a file lro cannot read back as a result, in a module of its own so the modules the header's parsing
// uses (streams.ts) can throw it without importing the header.

/** What to do about a result file that cannot be read back, unless the error says otherwise. */
export const DAMAGED_HINT = 'the stored file is damaged; offload the output again';

/** A file that is not a readable lro result, or a header lro cannot use; `hint` says what to do about it. */
export class FormatError extends Error {
  constructor(
    message: string,
    readonly hint: string = DAMAGED_HINT,
  ) {
    super(message);
  }
}

// The three ways a file's records disagree with its header, said alike by every reader that finds one.

/** The file ends inside a record. */
export const unterminatedRecord = (): FormatError =>
  new FormatError('is truncated: its last record has no end of line');

/** More records follow than the header's count. */
export const moreRecordsThanHeader = (count: number): FormatError =>
  new FormatError(`has more records than its header says (${count})`);

/** The file ends after `found` records, before the header's count. */
export const fewerRecordsThanHeader = (count: number, found: number): FormatError =>
  new FormatError(`is truncated: header says ${count} records, file has ${found}`);

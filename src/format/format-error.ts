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

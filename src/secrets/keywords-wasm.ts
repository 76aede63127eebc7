import KERNEL from './keywords-kernel.wat';

/** keywords-kernel.wat, assembled by the build (test/secrets/keywords.test.ts checks these bytes against the source). */
export const KEYWORDS_WASM: string = KERNEL;

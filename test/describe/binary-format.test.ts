// A binary output is named from its first bytes as file(1) names it (fixtures/binary-heads: the starts of real
// binaries, with what `file -b` said of each), and a start that is no known format gets no name.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { binaryFormat } from '../../src/describe/binary-format.js';

const DIR = resolve(__dirname, '../../fixtures/binary-heads');

describe('binaryFormat', () => {
  it.each([
    ['ls.head', 'ELF 64-bit LSB pie executable, x86-64'],
    ['crt1.o.head', 'ELF 64-bit LSB relocatable, x86-64'],
    ['w32.exe.head', 'PE32 executable (GUI) Intel 80386, for MS Windows'],
    ['w64.exe.head', 'PE32+ executable (GUI) x86-64, for MS Windows'],
    ['w64-arm.exe.head', 'PE32+ executable (GUI) Aarch64, for MS Windows'],
  ])('%s: %s', (file, name) => {
    expect(binaryFormat(readFileSync(join(DIR, file)))).toBe(name);
    // the same from fewer bytes than read (a short output): no exception, a name or a shorter one
    expect(() => binaryFormat(readFileSync(join(DIR, file)).subarray(0, 70))).not.toThrow();
  });

  it('archives and images by their magic; text and noise are no format', () => {
    expect(binaryFormat(gzipSync('hello'))).toBe('gzip compressed data');
    expect(binaryFormat(Buffer.from('%PDF-1.7\n'))).toBe('PDF document');
    expect(binaryFormat(Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 0x01, 0, 0, 0, 0, 2, 0, 0, 0]))).toBe('Mach-O 64-bit arm64 executable');
    expect(binaryFormat(Buffer.from('plain text, not a binary'))).toBeNull();
    expect(binaryFormat(Buffer.from([0x7f, 0x45]))).toBeNull();
  });
});

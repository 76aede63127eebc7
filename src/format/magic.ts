// What a binary result holds, told from its first bytes the way file(1) tells it from its magic numbers: enough for
// a reader to say in one line what the result is (an ELF executable, a PNG image, a gzip archive) and so what to
// do with its bytes. Not a full libmagic: the common formats only; anything else is "data", as file(1) says.

/** Known signatures: the bytes at an offset, and what file(1) would call the content. */
const SIGNATURES: { at: number; bytes: number[] | string; what: string }[] = [
  { at: 0, bytes: [0x7f, 0x45, 0x4c, 0x46], what: 'ELF executable or library' },
  { at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], what: 'PNG image' },
  { at: 0, bytes: [0xff, 0xd8, 0xff], what: 'JPEG image' },
  { at: 0, bytes: 'GIF8', what: 'GIF image' },
  { at: 0, bytes: '%PDF-', what: 'PDF document' },
  { at: 0, bytes: [0x50, 0x4b, 0x03, 0x04], what: 'Zip archive (also jar, docx, xlsx)' },
  { at: 0, bytes: [0x1f, 0x8b], what: 'gzip compressed data' },
  { at: 0, bytes: 'BZh', what: 'bzip2 compressed data' },
  { at: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'XZ compressed data' },
  { at: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'Zstandard compressed data' },
  { at: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: '7-zip archive' },
  { at: 257, bytes: 'ustar', what: 'POSIX tar archive' },
  { at: 0, bytes: 'SQLite format 3\0', what: 'SQLite 3 database' },
  { at: 0, bytes: [0x00, 0x61, 0x73, 0x6d], what: 'WebAssembly binary module' },
  { at: 0, bytes: [0xca, 0xfe, 0xba, 0xbe], what: 'Java class file or Mach-O universal binary' },
  { at: 0, bytes: [0xcf, 0xfa, 0xed, 0xfe], what: 'Mach-O 64-bit executable' },
  { at: 0, bytes: 'MZ', what: 'MS-DOS/Windows (PE) executable' },
  { at: 0, bytes: 'RIFF', what: 'RIFF data (WAV audio, WebP image or AVI video)' },
  { at: 0, bytes: 'OggS', what: 'Ogg data' },
  { at: 4, bytes: 'ftyp', what: 'ISO media (MP4, MOV, HEIC)' },
  { at: 0, bytes: 'ID3', what: 'MP3 audio' },
  { at: 0, bytes: '!<arch>\n', what: 'ar archive (static library or .deb)' },
];

/** What the content starting with `head` is, as file(1) names it; "data" when it is none of the known formats. */
export function contentKind(head: Uint8Array): string {
  for (const s of SIGNATURES) {
    const sig = typeof s.bytes === 'string' ? Buffer.from(s.bytes, 'latin1') : Buffer.from(s.bytes);
    if (head.length < s.at + sig.length) continue;
    if (Buffer.from(head.buffer, head.byteOffset + s.at, sig.length).equals(sig)) return s.what;
  }
  return 'data';
}

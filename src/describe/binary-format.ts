// What a binary output is, from its first bytes: an executable (ELF, Mach-O, PE, with its class, byte order, type
// and machine, as file(1) says them), an archive, an image, a database. The descriptor names it so that the first
// question ("what is this?") needs no call.

/** Bytes of the start that are read: enough for a PE's header, which most linkers put in the first 512 bytes. */
export const FORMAT_BYTES = 4096;

const ELF_TYPE: Record<number, string> = { 1: 'relocatable', 2: 'executable', 3: 'shared object', 4: 'core file' };
const ELF_MACHINE: Record<number, string> = {
  0x03: 'Intel 80386', 0x08: 'MIPS', 0x14: 'PowerPC', 0x15: 'PowerPC64', 0x28: 'ARM', 0x3e: 'x86-64', 0xb7: 'ARM aarch64',
  0xf3: 'RISC-V', 0x2b: 'SPARC V9', 0x16: 'IBM S/390', 0x102: 'LoongArch',
};
const MACHO_CPU: Record<number, string> = { 7: 'i386', 0x01000007: 'x86_64', 12: 'arm', 0x0100000c: 'arm64', 18: 'ppc' };
const MACHO_TYPE: Record<number, string> = { 1: 'object', 2: 'executable', 4: 'core', 6: 'dynamically linked shared library', 8: 'bundle' };
const PE_SUBSYSTEM: Record<number, string> = { 1: 'native', 2: 'GUI', 3: 'console', 10: 'EFI application' };
const PE_MACHINE: Record<number, string> = { 0x14c: 'Intel 80386', 0x8664: 'x86-64', 0xaa64: 'Aarch64', 0x1c0: 'ARM', 0x1c4: 'ARMv7' };

/** Formats known by a fixed start (after the executables). */
const MAGIC: [bytes: number[] | string, at: number, name: string][] = [
  [[0x1f, 0x8b], 0, 'gzip compressed data'],
  [[0x50, 0x4b, 0x03, 0x04], 0, 'Zip archive (or jar, docx, apk, whl)'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 0, 'XZ compressed data'],
  [[0x28, 0xb5, 0x2f, 0xfd], 0, 'Zstandard compressed data'],
  ['BZh', 0, 'bzip2 compressed data'],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 0, '7-zip archive'],
  ['ustar', 257, 'POSIX tar archive'],
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0, 'PNG image'],
  [[0xff, 0xd8, 0xff], 0, 'JPEG image'],
  ['GIF8', 0, 'GIF image'],
  ['%PDF-', 0, 'PDF document'],
  [[0x00, 0x61, 0x73, 0x6d], 0, 'WebAssembly (wasm) binary module'],
  ['SQLite format 3\0', 0, 'SQLite 3.x database'],
  ['!<arch>\n', 0, 'ar archive (a static library or a .deb)'],
];

/** A name for the format of a binary output's first bytes, as file(1) would put it, or null. */
export function binaryFormat(b: Uint8Array): string | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return elf(buf) ?? machO(buf) ?? pe(buf) ?? magic(buf);
}

function elf(b: Buffer): string | null {
  if (b.length < 20 || b.readUInt32BE(0) !== 0x7f454c46) return null;
  const bits = b[4] === 2 ? '64-bit' : b[4] === 1 ? '32-bit' : null;
  const order = b[5] === 1 ? 'LSB' : b[5] === 2 ? 'MSB' : null;
  if (!bits || !order) return 'ELF';
  const u16 = (at: number) => (order === 'LSB' ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (at: number) => (order === 'LSB' ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const e = u16(16);
  // a shared object with a program interpreter is a position-independent executable (what file(1) calls "pie")
  const type = e === 3 && interpreted(b, bits === '64-bit', u16, u32) ? 'pie executable' : ELF_TYPE[e];
  const machine = ELF_MACHINE[u16(18)];
  return `ELF ${bits} ${order}${type ? ` ${type}` : ''}${machine ? `, ${machine}` : ''}`;
}

/** Whether the program headers (those in the bytes read) hold a PT_INTERP. */
function interpreted(b: Buffer, wide: boolean, u16: (at: number) => number, u32: (at: number) => number): boolean {
  const phoff = wide ? u32(32) + u32(36) * 2 ** 32 : u32(28);
  const size = u16(wide ? 54 : 42);
  const count = u16(wide ? 56 : 44);
  for (let i = 0; i < count && phoff + (i + 1) * size <= b.length; i++) if (u32(phoff + i * size) === 3) return true;
  return false;
}

function machO(b: Buffer): string | null {
  if (b.length < 16) return null;
  const m = b.readUInt32BE(0);
  if (m === 0xcafebabe) {
    // a universal binary counts its architectures (a few); a Java class file has its version there (45 and up)
    const n = b.readUInt32BE(4);
    return n > 0 && n < 20 ? `Mach-O universal binary with ${n} architecture${n === 1 ? '' : 's'}` : 'compiled Java class data';
  }
  const kinds: Record<number, [string, boolean]> = {
    0xfeedface: ['32-bit', false],
    0xcefaedfe: ['32-bit', true],
    0xfeedfacf: ['64-bit', false],
    0xcffaedfe: ['64-bit', true],
  };
  const k = kinds[m];
  if (!k) return null;
  const u32 = (at: number) => (k[1] ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const cpu = MACHO_CPU[u32(4)];
  const type = MACHO_TYPE[u32(12)];
  return `Mach-O ${k[0]}${cpu ? ` ${cpu}` : ''}${type ? ` ${type}` : ''}`;
}

function pe(b: Buffer): string | null {
  if (b.length < 0x40 || b[0] !== 0x4d || b[1] !== 0x5a) return null;
  const at = b.readUInt32LE(0x3c);
  if (at + 26 > b.length || b.readUInt32BE(at) !== 0x50450000) return 'MS-DOS executable';
  const machine = PE_MACHINE[b.readUInt16LE(at + 4)];
  const dll = (b.readUInt16LE(at + 22) & 0x2000) !== 0;
  const plus = b.readUInt16LE(at + 24) === 0x20b;
  const sub = at + 24 + 70 <= b.length ? PE_SUBSYSTEM[b.readUInt16LE(at + 24 + 68)] : undefined;
  return `PE32${plus ? '+' : ''} executable${dll ? ' (DLL)' : ''}${sub ? ` (${sub})` : ''}${machine ? ` ${machine}` : ''}, for MS Windows`;
}

function magic(b: Buffer): string | null {
  for (const [bytes, at, name] of MAGIC) {
    const want = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
    if (b.length >= at + want.length && b.subarray(at, at + want.length).equals(want)) return name;
  }
  return null;
}

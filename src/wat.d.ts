// A WebAssembly kernel's source (src/**/*.wat), imported: its bytes, assembled with wabt when the code is bundled
// (scripts/wat.mjs), as base64.
declare module '*.wat' {
  const base64: string;
  export default base64;
}

// The package version, injected at build time (scripts/build.mjs) and in tests (vitest.config.ts).
declare const __LRO_VERSION__: string | undefined;

export const VERSION: string = typeof __LRO_VERSION__ === 'string' ? __LRO_VERSION__ : '0.0.0-dev';

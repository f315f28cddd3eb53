import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * Writes `.br` and `.gz` beside each text asset once at build time, so the service
 * (@fastify/static preCompressed) serves them compressed at maximum level without
 * compressing per request.
 */
export function precompressAssets(): Plugin {
  let assetsDir = '';
  return {
    name: 'svc-precompress-assets',
    apply: 'build',
    configResolved(config) {
      assetsDir = resolve(config.root, config.build.outDir, config.build.assetsDir);
    },
    closeBundle() {
      for (const name of readdirSync(assetsDir)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const content = readFileSync(join(assetsDir, name));
        writeFileSync(join(assetsDir, `${name}.br`), brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assetsDir, `${name}.gz`), gzipSync(content, { level: 9 }));
      }
    },
  };
}

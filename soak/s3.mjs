// The S3-compatible server the identity tests use (s3rver), in a process of its own for the soak:
// one bucket in <directory>. Prints {"port":…} once listening; stops on SIGTERM or when stdin closes.
// Usage: node soak/s3.mjs <directory> <bucket>
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [directory, bucket] = process.argv.slice(2);
const requireFromIdentity = createRequire(new URL('../services/identity/package.json', import.meta.url));
const { default: S3rver } = await import(pathToFileURL(requireFromIdentity.resolve('s3rver')).href);
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
console.log(JSON.stringify({ port }));
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.resume();
process.stdin.on('end', stop);

// An S3-compatible server (s3rver, the one the tests use) in a process of its own, for benches
// that put evidence in a bucket: `node bench/s3-server.mjs <directory> <bucket>` prints
// {"port":…} as its first stdout line and stops on SIGTERM/SIGINT or when stdin closes.
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) {
  console.error('usage: node bench/s3-server.mjs <directory> <bucket>');
  process.exit(2);
}
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
console.log(JSON.stringify({ port }));
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 2000).unref();
  void server.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.resume();
process.stdin.on('end', stop);
process.stdin.on('error', stop);

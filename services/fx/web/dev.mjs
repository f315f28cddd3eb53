// `pnpm dev` for fx: the API (tsx watch, port $PORT or 3002), the rates page (Vite with hot
// reload on $WEB_DEV_PORT or 5173) and the developer dashboard ($DEVELOPERS_DEV_PORT or 5174,
// at /developers/), both proxying /api to the API. One process each; Ctrl-C or
// any one exiting stops them all, so no orphan keeps a port.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const children = [
  spawn('pnpm', ['exec', 'tsx', 'watch', '--clear-screen=false', 'src/server.ts'], { cwd: serviceDir, stdio: 'inherit' }),
  spawn('pnpm', ['exec', 'vite', 'web'], { cwd: serviceDir, stdio: 'inherit' }),
  spawn('pnpm', ['exec', 'vite', 'developers'], { cwd: serviceDir, stdio: 'inherit' }),
];
let stopping = false;
const stopAll = (signal) => {
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));
let remaining = children.length;
for (const child of children) {
  child.on('exit', (code) => {
    if (!stopping) stopAll('SIGTERM');
    remaining -= 1;
    if (remaining === 0) process.exit(code ?? 0);
  });
}

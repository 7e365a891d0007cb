// Completes package-lock.json with the platform-specific optional packages (biome, litesvm binaries for
// other systems) that a registry without those binaries does not carry: npm leaves them out of the lock, and then
// `npm ci` refuses the lock as out of sync with package.json. npm skips them on install here anyway, as
// their os/cpu do not match. Run after any `npm install` that changed the lock:
//   node scripts/complete-lockfile.cjs
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const PLATFORM = /(darwin|win32|android|linux|freebsd|musl|gnu)/;

function platformOf(name) {
  const os = /darwin/.test(name)
    ? 'darwin'
    : /win32/.test(name)
      ? 'win32'
      : /android/.test(name)
        ? 'android'
        : 'linux';
  const cpu = /arm64/.test(name) ? 'arm64' : 'x64';
  const libc = os === 'linux' ? (/musl/.test(name) ? 'musl' : 'glibc') : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const entry of Object.values(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] || !PLATFORM.test(dep)) continue;
    lock.packages[key] = { version, ...platformOf(dep), ...(entry.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);

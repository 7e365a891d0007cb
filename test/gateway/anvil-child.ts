// Child process for the anvil lifecycle tests: starts anvil, prints its URL, then either waits to be killed
// (`kill`) or stops it and says so (`stop`), and waits.
import { startAnvil } from '../../src/gateway/evm/index.ts';

const anvil = await startAnvil();
process.stdout.write(`${JSON.stringify({ url: anvil.url })}\n`);
if (process.argv[2] === 'stop') {
  await anvil.stop();
  process.stdout.write(`${JSON.stringify({ stopped: true })}\n`);
}
setInterval(() => {}, 60_000);

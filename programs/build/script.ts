// How a build script runs from the command line: its main only when the file is the script run (tests import
// the builders without building), an error printed as its message with a failing exit code.
import { fileURLToPath } from 'node:url';

export function runWhenInvoked(moduleUrl: string, main: () => void): void {
  if (!process.argv[1] || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}

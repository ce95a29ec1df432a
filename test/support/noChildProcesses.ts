// Setup of the unit tier: starting a child process fails the test, so a test that needs one says so by living in test/integration.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const childProcess = require('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = () => {
    throw new Error(`a unit test started a child process (child_process.${name}): move the test to test/integration`);
  };
}
// ES module imports of node:child_process see the replaced functions too.
syncBuiltinESMExports();

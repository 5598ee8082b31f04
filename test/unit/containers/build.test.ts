import { existsSync, readFileSync } from 'node:fs';
import { bundle, bundleDirectory } from '../../../containers/build';

describe('bundle', () => {
  it.each(['controller', 'sample-game'] as const)(
    'builds %s once per process to node_modules/.cache/roomkeeper, with zeromq left external',
    async (name) => {
      const started = performance.now();
      const first = bundle(name);
      const [path, again] = await Promise.all([first, bundle(name)]);
      process.stdout.write(`bundle(${name}): ${Math.round(performance.now() - started)} ms\n`);
      expect(bundle(name)).toBe(first);
      expect(again).toBe(path);
      expect(path).toBe(`${bundleDirectory}/${name}.js`);
      const code = readFileSync(path, 'utf8');
      expect(code).toContain('require("zeromq")');
      expect(code).toMatch(/\/\/# sourceMappingURL=.+\.js\.map\s*$/);
      expect(existsSync(`${path}.map`)).toBe(true);
      expect(existsSync(`${path}.${process.pid}.tmp`)).toBe(false);
    },
  );
});

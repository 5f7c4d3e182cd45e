// The bench's bare extensions (the activation baselines, the empty webview, the bare welcome): a
// folder with a package.json of what every manifest needs and `fields`, and its extension.js.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export function writeBenchExtension(dir: string, name: string, fields: Record<string, unknown>, main?: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, publisher: 'reins-bench', version: '0.0.1', engines: { vscode: '^1.90.0' }, ...fields }),
  );
  if (main !== undefined) writeFileSync(path.join(dir, 'extension.js'), main);
  return dir;
}

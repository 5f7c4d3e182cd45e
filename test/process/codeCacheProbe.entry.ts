// A fresh process for test/process/codeCache.test.ts: V8 keeps what one process compiled and
// never reads a code cache for a source it compiled already, so each load is a process of its own.
//   node codeCacheProbe.entry.js <bundle> <cache folder | ''> <version>
// prints {"use": …, "answer": <the bundle's exports.answer>} after writing the cache (keep()).
import { loadBundle } from '../../src/boot/codeCache';

const [file = '', cacheDir, version] = process.argv.slice(2);
const bundle = loadBundle(file, cacheDir || undefined, version ?? '1.0.0');
bundle.keep();
process.stdout.write(JSON.stringify({ use: bundle.use, answer: (bundle.exports as { answer?: unknown }).answer }));

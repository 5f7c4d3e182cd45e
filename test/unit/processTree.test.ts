// The process listing's /proc entries, parsed (src/acp/processTree.ts). The listing of the real
// machine, compared with ps: test/process/processTree.test.ts.
import * as assert from 'node:assert/strict';
import { procEntry } from '../../src/acp/processTree';

describe('process listing: /proc entries', () => {
  const now = 1_700_000_000_000;

  it('reads pid, ppid, group, start and the arguments (NUL-separated) of one process', () => {
    // comm may hold spaces and parentheses: the fields come after the last ')'.
    const stat = '4242 (my (odd) name) S 4200 4242 4242 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 150000 0 0';
    assert.deepEqual(procEntry(4242, stat, 'sh\0-c\0sleep 37\0', now, 2000), {
      pid: 4242,
      ppid: 4200,
      pgid: 4242,
      // Started 1500 s after boot (150000 ticks of 10 ms), the machine is up 2000 s: 500 s ago.
      startedAt: now - 500_000,
      startedWithinMs: 50,
      command: 'sh -c sleep 37',
    });
  });

  it('names a process without arguments (kernel thread, zombie) [name], as ps does', () => {
    const stat = '7 (kworker/0:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 12 0 0';
    assert.equal(procEntry(7, stat, '', now, 100)?.command, '[kworker/0:1]');
    assert.equal(procEntry(7, 'not a stat line', '', now, 100), undefined);
  });
});

// Launches an ACP agent and passes its stdio through unchanged, while starting processes of
// the agent's own at the moments a leftover scan can mistake them for a turn's tools:
//   reins-own-helper-during   when a session/prompt goes to the agent (the turn is running)
//   reins-own-helper-after    when the agent answers a prompt, before the answer is passed on
//                             (so it exists when Reins learns the turn's outcome and scans)
// Real agents do this too (claude-agent-acp's Claude Code process per session, pi-acp's `pi`,
// gemini's relaunched self); these make it happen in every agent, at the worst moments, with a
// name a test can look for. Each helper is `sleep 3600` renamed by `exec -a`, a child of this
// wrapper, so it is in the agent's process tree and group like the real ones.
//   node ownHelpers.mjs <agent command> [args...]
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const agent = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });

function helper(name) {
  spawn('bash', ['-c', `exec -a ${name} sleep 3600`], { stdio: 'ignore' });
}

/** Calls `onLine` with each complete line of `from` and writes the lines to `to` after it. */
function lines(from, to, onLine) {
  let buf = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl + 1);
      buf = buf.slice(nl + 1);
      onLine(line);
      to.write(line);
    }
  });
  from.on('end', () => {
    if (buf) to.write(buf);
    if (to !== process.stdout) to.end(); // the agent sees our stdin close
  });
}

lines(process.stdin, agent.stdin, (line) => {
  if (line.includes('"method":"session/prompt"')) helper('reins-own-helper-during');
});
lines(agent.stdout, process.stdout, (line) => {
  if (line.includes('"stopReason"')) helper('reins-own-helper-after');
});
agent.stdin.on('error', () => undefined); // the agent went first
agent.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));

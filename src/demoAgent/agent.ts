// The scripted ACP agent: a real child process that speaks ACP v1 over stdio, written with
// Node built-ins only so that it can misbehave exactly as a scenario says. With no scenario it
// is the offline demonstration agent that ships with Reins.
//
//   node scripted-agent.js [--scenario FILE | --scenario-json JSON | --demo] [--record FILE]
//   env fallbacks: REINS_SCENARIO, REINS_SCENARIO_JSON, REINS_RECORD
import { runLogin } from './auth';
import { Recorder } from './recorder';
import { loadOptions, ScenarioError, type Options } from './scenario';
import { Agent } from './server';
import { readLines } from './wire';

function main(): void {
  let options: Options;
  try {
    options = loadOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    process.stderr.write(`reins-scripted-agent: ${err.message}\n`);
    process.exit(2);
  }
  const { scenario, recordFile } = options;
  const rec = new Recorder(recordFile);
  if (options.login) runLogin(scenario?.auth, rec);
  rec.event('started', { pid: process.pid, ppid: process.ppid, mode: scenario ? 'scenario' : 'demo', scenario: scenario?.name });
  const agent = new Agent(rec, scenario);
  const startup = scenario?.startup ?? {};

  process.on('SIGTERM', () => {
    rec.event('signal', { signal: 'SIGTERM' });
    if (!startup.ignoreSigterm) agent.shutdown(143, 'SIGTERM');
  });
  process.stdout.on('error', (err: Error) => {
    rec.event('stdout-error', { error: err.message });
    agent.exit(1, 'stdout-error');
  });

  if (!scenario) process.stderr.write('Reins demonstration agent: scripted, offline, no model.\n');
  for (const line of startup.stderrLines ?? []) process.stderr.write(line + '\n');
  for (const line of startup.garbageBefore ?? []) agent.peer.sendRaw(line, { raw: line });
  if (startup.exitImmediately !== undefined) agent.exit(startup.exitImmediately, 'startup');

  readLines(
    process.stdin,
    (line) => agent.onLine(line),
    () => agent.onStdinEnd(),
  );
}

main();

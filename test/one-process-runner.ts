/**
 * The one-process suite for the flow tests: every unit in this one process through the code
 * `svc suite --one-process` runs (`startInOneProcess`, `startOne`), plus a control channel on
 * stdin so a test can take one unit away and bring it back, which the real command has no reason
 * to offer. The plan (names and each unit's environment) comes in SVC_ONE_PROCESS_PLAN.
 *
 * Commands, one per line: `stop <name>` and `start <name> <extra env as JSON>`; each is answered
 * on stdout with `@control ok <name>` or `@control error <name> <reason>`; `@control ready` is
 * printed once all are live (the units' own log lines share stdout).
 */
import { startInOneProcess, startOne } from '../bin/suite.ts'
import type { Env, ListeningUnit } from '../runtime/run.ts'

/** Units log JSON lines to stdout too: control answers carry this prefix. */
const MARK = '@control '
const plan = JSON.parse(process.env.SVC_ONE_PROCESS_PLAN ?? '{}') as {
  names: string[]
  envs: Record<string, Env>
}
const running = new Map<string, ListeningUnit>()
for (const unit of await startInOneProcess(plan.names, plan.envs)) running.set(unit.name, unit)
process.stdout.write(`${MARK}ready\n`)

async function handle(line: string): Promise<string> {
  const [command, name = '', ...rest] = line.split(' ')
  if (command === 'stop') {
    await running.get(name)?.stop('SIGTERM')
    running.delete(name)
    return `ok ${name}`
  }
  if (command === 'start') {
    const extra = JSON.parse(rest.join(' ') || '{}') as Env
    running.set(name, await startOne(name, { ...plan.envs[name], ...extra }))
    return `ok ${name}`
  }
  return `error ${name} unknown command ${command}`
}

process.on('SIGTERM', async () => {
  await Promise.all([...running.values()].map((u) => u.stop('SIGTERM')))
  process.exit(0)
})

let buffered = ''
for await (const chunk of Bun.stdin.stream()) {
  buffered += new TextDecoder().decode(chunk)
  for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
    const line = buffered.slice(0, nl)
    buffered = buffered.slice(nl + 1)
    const name = line.split(' ')[1] ?? ''
    const answer = await handle(line).catch((err: Error) => `error ${name} ${err.message}`)
    process.stdout.write(`${MARK}${answer}\n`)
  }
}

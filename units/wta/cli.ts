/**
 * `svc wta <command>`: the primary product surface. Every command calls the same service
 * function as its API route and prints the same answer (`--json` prints the API's body);
 * exit 0 on an answer, 1 when the answer is a failure (tool unreachable, workflow invalid,
 * critical alerts, nothing stored), 2 on bad usage or configuration.
 */
import { readFileSync } from 'node:fs'
import { Value } from '@sinclair/typebox/value'
import { type Command, defineCli, EXIT_FAILED, EXIT_OK, type Outcome, UsageError } from '../../common/cli.ts'
import { AppError, appErrorBody } from '../../common/errors.ts'
import { migrations } from '../../db/migrations/wta/index.ts'
import { openStorage, redactUrl, type Storage, storageTarget } from '../../db/storage.ts'
import { type WtaConfig, wtaCliEnv } from './config.ts'
import { meta } from './meta.ts'
import { answer } from './service/answer.ts'
import { N8nWorkflow } from './service/automation.ts'
import { baselineLatest, hotspots, upstreamLatest } from './service/catalog.ts'
import { createObservers } from './service/observer.ts'
import { health, status } from './service/status.ts'
import { alerts, backlog, batches, impact, makeReport, scheduledLatest, summary } from './service/upgrade.ts'
import {
  getWorkflow,
  listWorkflows,
  validateDocument,
  validateWorkflowById,
  workflowContextOf,
} from './service/workflows.ts'
import { createWta, type Wta } from './service/wta.ts'

type Body = { ok: true; data: unknown; meta: { source: string; stale?: boolean; reason?: string } }

interface Shown {
  body: Body
  lines: string[]
  /** The answer is itself a failed check (exit 1). */
  failed?: boolean
}

type Run = (wta: Wta, c: { options: Record<string, unknown>; positionals: string[] }) => Promise<Shown>

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const int = (v: unknown, name: string) => {
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer`)
  return n
}
const staleNote = (b: Body) =>
  b.meta.stale ? [`(from the stored snapshot: ${b.meta.reason ?? 'the tool could not be read'})`] : []
// biome-ignore lint/suspicious/noExplicitAny: the human renderers read the answer's documented fields
type Data = any

/** WTA's storage on the driver DATABASE_URL names (the file under SVC_DATA_DIR by default). */
async function openWtaStorage(config: WtaConfig): Promise<Storage> {
  const target = storageTarget(meta.name, config.SVC_DATA_DIR, config.DATABASE_URL)
  try {
    return await openStorage(target, migrations, {
      authToken: config.DATABASE_AUTH_TOKEN,
      owner: meta.name,
    })
  } catch (err) {
    const where = target.driver === 'libsql' ? redactUrl(target.url) : target.path
    const variable = config.DATABASE_URL ? 'DATABASE_URL' : 'SVC_DATA_DIR'
    const reason = (err as { code?: string }).code ?? (err as Error).message
    throw new UsageError(`${variable}: cannot open the database at ${where} (${reason})`)
  }
}

/** Run a command's use case on WTA's database, log it to the event log, and shape its outcome. */
function command(
  name: string,
  summaryText: string,
  run: Run,
  extra: Partial<Command<WtaConfig>> = {},
): Command<WtaConfig> {
  return {
    summary: summaryText,
    ...extra,
    async run(ctx) {
      const storage = await openWtaStorage(ctx.config)
      const wta = createWta(ctx.config, storage)
      try {
        const shown = await run(wta, { options: ctx.options, positionals: ctx.positionals })
        wta.events.append(`command.${name.replace(' ', '.')}`, {
          ok: !shown.failed,
          source: shown.body.meta.source,
        })
        const human = [...shown.lines, ...staleNote(shown.body)].join('\n')
        return { exit: shown.failed ? EXIT_FAILED : EXIT_OK, human, json: shown.body } satisfies Outcome
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        if (err.status === 400) throw new UsageError(err.message)
        wta.events.append(`command.${name.replace(' ', '.')}`, { ok: false, error: err.errorCode })
        return { exit: EXIT_FAILED, human: `${err.errorCode}: ${err.message}`, json: appErrorBody(err) }
      } finally {
        await storage.close()
      }
    },
  }
}

const target = { target: { type: 'string' as const } }
const targetOf = (o: Record<string, unknown>) => (str(o.target) ? { target_version: str(o.target) } : {})

const upgradeLines = (d: Data) => [
  `n8n ${d.current_version} -> ${d.target_version}: ${d.recommendation}`,
  `  ${d.affected_workflows}/${d.workflows} workflows affected, ${d.affected_nodes} nodes (${d.manual_nodes} manual); severities ${JSON.stringify(d.by_severity)}`,
]

export const wtaCli = defineCli({
  name: 'wta',
  title: 'workflow tooling for n8n',
  env: wtaCliEnv,
  commands: {
    health: command('health', 'API and workflow-automation-tool reachability', async (wta) => {
      const body = await health(wta)
      const a = body.data.automation
      return {
        body,
        failed: !a.reachable,
        lines: [
          `automation ${a.url ?? '(not configured)'}: ${a.reachable ? `reachable (${a.status})` : `unreachable (${a.reason})`}`,
        ],
      }
    }),
    status: command('status', 'operator, runtime, catalog, upgrade and platform status', async (wta) => {
      const body = await status(wta)
      const d: Data = body.data
      return {
        body,
        lines: [
          `API surface ${d.platform.api_surface_version} (pilot), auth ${d.operator.auth}`,
          `automation ${d.runtime.automation.url ?? '(not configured)'}: ${d.runtime.automation.reachable ? 'reachable' : 'unreachable'}, n8n ${d.runtime.automation_version ?? 'unknown'}`,
          `snapshot: ${d.catalog.workflows} workflows, last sync ${d.platform.last_sync_at ?? 'never'}; ${d.catalog.node_types_in_use} node types in use, deprecated: ${d.catalog.deprecated_in_use.join(', ') || 'none'}`,
          `catalogs: node types of n8n ${d.catalog.node_types_n8n_version}, breaking changes ${d.catalog.breaking_changes_version}`,
          `upgrade: latest known ${d.upgrade.latest_known_upstream ?? 'unknown'}, last report ${d.upgrade.last_report_at ?? 'none'} (${d.upgrade.recommendation ?? '-'})`,
          `webhooks monitored: ${d.platform.webhooks.monitored}`,
        ],
      }
    }),
    baseline: command(
      'baseline',
      'node types and type versions in use (stored when changed)',
      async (wta) => {
        const body = await baselineLatest(wta)
        const d = body.data
        return {
          body,
          lines: [
            `baseline ${d.baseline_id} (${d.taken_at}): ${d.workflows} workflows, ${d.nodes} nodes, ${d.node_types.length} node types`,
            ...d.node_types.map(
              (t) =>
                `  ${t.node_type} v${t.type_versions.map((v) => v.type_version).join(',')}: ${t.nodes} nodes in ${t.workflows} workflows${t.deprecated ? ' DEPRECATED' : ''}${t.known ? '' : ' UNKNOWN'}`,
            ),
          ],
        }
      },
    ),
    upstream: command('upstream', 'the latest n8n release from the configured source', async (wta) => {
      const body = await upstreamLatest(wta)
      return {
        body,
        lines: [
          `latest n8n ${body.data.version} (published ${body.data.published_at ?? 'unknown'}) from ${body.data.source}`,
        ],
      }
    }),
    hotspots: command(
      'hotspots',
      'failing and slow workflows and nodes over a window',
      async (wta, c) => {
        const body = await hotspots(wta, {
          hours: int(c.options.hours, 'hours'),
          limit: int(c.options.limit, 'limit'),
        })
        const d = body.data
        return {
          body,
          lines: [
            `${d.executions} executions since ${d.since}, ${d.failures} failed`,
            ...d.failing_workflows.map(
              (w) => `  failing ${w.name ?? w.workflow_id}: ${w.failures}/${w.executions}`,
            ),
            ...d.slow_workflows.map(
              (w) => `  slow ${w.name ?? w.workflow_id}: avg ${w.avg_ms} ms, max ${w.max_ms} ms`,
            ),
            ...d.failing_nodes.map((n) => `  failing node ${n.workflow_id}/${n.node}: ${n.failures}`),
            ...d.slow_nodes.map((n) => `  slow node ${n.workflow_id}/${n.node}: avg ${n.avg_ms} ms`),
          ],
        }
      },
      {
        args: '[--hours <n>] [--limit <n>]',
        options: { hours: { type: 'string' }, limit: { type: 'string' } },
      },
    ),
    workflows: command(
      'workflows',
      'workflows (live, snapshotted; from the snapshot when the tool is down)',
      async (wta) => {
        const body = await listWorkflows(wta)
        return {
          body,
          lines: [
            `${body.data.count} workflows`,
            ...body.data.workflows.map(
              (w) => `  ${w.id}  ${w.active ? 'active  ' : 'inactive'}  ${w.nodes} nodes  ${w.name}`,
            ),
          ],
        }
      },
    ),
    workflow: command(
      'workflow',
      'one workflow and its snapshot history',
      async (wta, c) => {
        const body = await getWorkflow(wta, c.positionals[0] as string)
        const w = body.data.workflow
        return {
          body,
          lines: [
            `${w.id} ${w.name}: ${w.nodes.length} nodes, ${body.data.history.length} snapshot version(s)`,
          ],
        }
      },
      { args: '<id>', positionals: { min: 1, max: 1 } },
    ),
    context: command(
      'context',
      'the WorkflowContext document of a workflow',
      async (wta, c) => {
        const body = await workflowContextOf(wta, c.positionals[0] as string)
        return { body, lines: [JSON.stringify(body.data, null, 2)] }
      },
      { args: '<id>', positionals: { min: 1, max: 1 } },
    ),
    validate: command(
      'validate',
      'structural checks of a workflow (by id, or a workflow file with --file)',
      async (wta, c) => {
        const file = str(c.options.file)
        if (!file && c.positionals.length !== 1)
          throw new UsageError("'validate' takes a workflow id or --file <path>")
        let body: Awaited<ReturnType<typeof validateWorkflowById>>
        if (file) {
          let doc: unknown
          try {
            doc = JSON.parse(readFileSync(file, 'utf8'))
          } catch (err) {
            throw new UsageError(`${file}: ${(err as Error).message}`)
          }
          const withId = { id: 'file', ...(doc as object) }
          if (!Value.Check(N8nWorkflow, withId))
            throw new UsageError(`${file} is not an n8n workflow (name, nodes, connections)`)
          body = validateDocument(wta, withId)
        } else body = await validateWorkflowById(wta, c.positionals[0] as string)
        const d = body.data
        return {
          body,
          failed: !d.valid,
          lines: [
            `${d.name}: ${d.valid ? 'valid' : 'INVALID'} (${d.errors} errors, ${d.warnings} warnings)`,
            ...d.issues.map(
              (i) => `  ${i.severity.toUpperCase()} ${i.code}${i.node ? ` [${i.node}]` : ''}: ${i.message}`,
            ),
          ],
        }
      },
      {
        args: '<id> | --file <path>',
        options: { file: { type: 'string' } },
        positionals: { min: 0, max: 1 },
      },
    ),
    'upgrade summary': command(
      'upgrade summary',
      'versions, affected workflows and nodes, recommendation',
      async (wta, c) => {
        const body = await summary(wta, targetOf(c.options))
        return { body, lines: upgradeLines(body.data) }
      },
      { args: '[--target <version>]', options: target },
    ),
    'upgrade backlog': command(
      'upgrade backlog',
      'the manual work an upgrade needs, most severe first',
      async (wta, c) => {
        const body = await backlog(wta, targetOf(c.options))
        return {
          body,
          lines: [
            `${body.data.count} manual item(s) for ${body.data.from_version} -> ${body.data.target_version}`,
            ...body.data.items.map(
              (i) => `  ${i.severity.padEnd(8)} ${i.workflow_name} / ${i.node} (${i.node_type}): ${i.title}`,
            ),
          ],
        }
      },
      { args: '[--target <version>]', options: target },
    ),
    'upgrade batches': command(
      'upgrade batches',
      'workflows grouped into upgrade batches by risk',
      async (wta, c) => {
        const body = await batches(wta, targetOf(c.options))
        return {
          body,
          lines: body.data.batches.map(
            (b) => `batch ${b.batch} ${b.key}: ${b.workflows.map((w) => w.name).join(', ') || '-'}`,
          ),
        }
      },
      { args: '[--target <version>]', options: target },
    ),
    'upgrade alerts': command('upgrade alerts', 'alerts that need an operator', async (wta) => {
      const body = await alerts(wta)
      return {
        body,
        failed: body.data.critical > 0,
        lines: [
          `${body.data.count} alert(s), ${body.data.critical} critical`,
          ...body.data.alerts.map((a) => `  ${a.severity.toUpperCase()} ${a.code}: ${a.message}`),
        ],
      }
    }),
    'upgrade scheduled': command('upgrade scheduled', 'the latest scheduled upgrade report', async (wta) => {
      const body = await scheduledLatest(wta)
      const d: Data = body.data
      return {
        body,
        lines: [`report ${d.report_id} (${d.trigger}, ${d.created_at})`, ...upgradeLines(d.summary)],
      }
    }),
    'upgrade report': command('upgrade report', 'make and store an upgrade report now', async (wta) => {
      const body = await makeReport(wta, 'command')
      return { body, lines: [`report ${body.data.report_id} stored`, ...upgradeLines(body.data.summary)] }
    }),
    'upgrade impact': command(
      'upgrade impact',
      'every workflow’s affected nodes for a target version',
      async (wta, c) => {
        const body = await impact(wta, {
          ...targetOf(c.options),
          ...(str(c.options.from) ? { from_version: str(c.options.from) } : {}),
        })
        const d = body.data
        return {
          body,
          lines: [
            `impact ${d.from_version} -> ${d.target_version} (catalog ${d.catalog_version})`,
            ...d.workflows.flatMap((w) => [
              `  ${w.name}: ${w.affected_nodes.length === 0 ? 'unaffected' : `${w.max_severity}${w.auto_migratable ? ', auto-migratable' : ''}`}`,
              ...w.affected_nodes.map(
                (a) =>
                  `    ${a.severity.padEnd(8)} ${a.node} (${a.node_type}) ${a.auto_migratable ? 'auto' : 'manual'}: ${a.title}`,
              ),
            ]),
            ...d.instance_changes.map((c) => `  instance ${c.severity}: ${c.title}`),
          ],
        }
      },
      { args: '[--target <version>] [--from <version>]', options: { ...target, from: { type: 'string' } } },
    ),
    observe: command(
      'observe',
      'one observer round now (snapshot the workflows, log what changed)',
      async (wta) => {
        const observers = createObservers(wta)
        await observers.flow.runOnce()
        const stats = observers.flow.stats()
        await observers.flow.stop()
        const body = answer(stats, { source: 'live' }, wta.now())
        return {
          body,
          failed: stats.consecutive_failures > 0 || stats.holds_lease === false,
          lines: [
            stats.holds_lease === false
              ? 'another observer holds the lease for this gateway target; nothing done'
              : stats.last_error
                ? `observer round failed: ${stats.last_error}`
                : 'observer round done',
          ],
        }
      },
    ),
    events: command(
      'events',
      'the last lines of logs/events.jsonl (at most the 300-line window)',
      async (wta, c) => {
        const events = wta.events.tail(int(c.options.lines, 'lines') ?? 50)
        const body = answer({ path: wta.events.path, events }, { source: 'stored' }, wta.now())
        return { body, lines: events.map((e) => `${e.at} ${e.kind} ${JSON.stringify(e.detail)}`) }
      },
      { args: '[--lines <n>]', options: { lines: { type: 'string' } } },
    ),
  },
})

/** Planning cycles, modules and pages (fields are this project's: the spec shows only sync results). */
import { t } from 'elysia'
import { Key, lit, Nullable, ProjectId, Text, Ts } from './common.ts'

const Day = t.String({ format: 'date', description: 'YYYY-MM-DD' })

export const CycleState = lit('planned', 'active', 'closed')
export const Cycle = t.Object({
  cycle_key: t.String(),
  title: t.String(),
  state: t.String(),
  starts_on: Nullable(t.String()),
  ends_on: Nullable(t.String()),
  task_count: t.Integer(),
  created_at: Ts,
})
export const CycleList = t.Object({ project_id: t.String(), items: t.Array(Cycle) })
export const CreateCycleRequest = t.Object({
  cycle_key: Key('cycle key'),
  title: Text(200, 'title'),
  state: t.Optional(CycleState),
  starts_on: t.Optional(Day),
  ends_on: t.Optional(Day),
})

export const Module = t.Object({
  module_key: t.String(),
  title: t.String(),
  cycle_key: Nullable(t.String()),
  state: t.String(),
  task_count: t.Integer(),
  created_at: Ts,
})
export const ModuleList = t.Object({ project_id: t.String(), items: t.Array(Module) })
export const CreateModuleRequest = t.Object({
  module_key: Key('module key'),
  title: Text(200, 'title'),
  cycle_key: t.Optional(Key('cycle key')),
  state: t.Optional(lit('open', 'done')),
})

export const Slug = t.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,99}$',
  description: 'page slug: lowercase, digits, dash',
})
export const PageParams = t.Object({ project_id: ProjectId, slug: Slug })

export const Page = t.Object({
  slug: t.String(),
  title: t.String(),
  body: t.String(),
  repo_path: t.String(),
  sync_state: t.String(),
  repo_commit: Nullable(t.String()),
  version_token: Ts,
  updated_at: Ts,
})
export const PageList = t.Object({
  project_id: t.String(),
  items: t.Array(t.Omit(Page, ['body'])),
})
export const CreatePageRequest = t.Object({
  slug: Slug,
  title: Text(200, 'title'),
  body: t.String({ maxLength: 200_000, description: 'markdown' }),
})
export const UpdatePageRequest = t.Object({
  title: t.Optional(Text(200, 'title')),
  body: t.Optional(t.String({ maxLength: 200_000, description: 'markdown' })),
  expected_version: t.Optional(t.String({ maxLength: 40 })),
})
export const PageSyncRequest = t.Object({
  expected_version: t.Optional(t.String({ maxLength: 40, description: 'the page version_token last read' })),
})

/** The spec's planning page sync result, plus the page's new version. */
export const PageSyncResult = t.Object({
  slug: t.String(),
  sync_state: t.String(),
  repo_path: t.String(),
  repo_commit: Nullable(t.String()),
  version_token: Ts,
})
export const RepoSyncResult = t.Object({
  project_id: t.String(),
  repo_commit: Nullable(t.String()),
  pages: t.Array(t.Object({ slug: t.String(), sync_state: t.String(), repo_path: t.String() })),
})
/** The spec's integration sync result. */
export const IntegrationSyncResult = t.Object({
  project_id: t.String(),
  sync_mode: t.String(),
  result: t.Object({}, { additionalProperties: true }),
})

/** Projects, lanes, tasks and the board. */
import { t } from 'elysia'
import { Key, lit, Nullable, PageQuery, ProjectId, Text, Ts } from './common.ts'

export const RepoRef = t.Object({
  provider: t.String({ description: 'github, gitlab, gitea or another code host; unbound when none' }),
  full_name: t.String({ description: 'owner/name; empty when unbound' }),
})

export const CreateProjectRequest = t.Object({
  project_id: ProjectId,
  name: Text(200, 'display name'),
  primary_repo_ref: t.Optional(
    t.Object({
      provider: lit('github', 'gitlab', 'gitea'),
      full_name: t.String({ pattern: '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$', maxLength: 200 }),
    }),
  ),
})

export const Project = t.Object({
  project_id: t.String(),
  name: t.String(),
  primary_repo_ref: Nullable(RepoRef),
  created_at: Ts,
  updated_at: Ts,
})
export const ProjectList = t.Object({ items: t.Array(Project), next_cursor: Nullable(t.String()) })
export const ProjectListQuery = t.Object(PageQuery)

export const Lane = t.Object({
  lane_key: t.String(),
  title: t.String(),
  position: t.Integer(),
  task_count: t.Integer(),
})
export const LaneList = t.Object({ project_id: t.String(), items: t.Array(Lane) })

export const TaskKey = t.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$',
  description: 'task key: letters, digits, dot, dash, underscore; 1-100 chars',
})
export const TaskParams = t.Object({ project_id: ProjectId, task_key: TaskKey })

/** The spec's task payload, plus the task's own fields (key, title, status, lifecycle). */
export const Task = t.Object({
  id: t.String(),
  task_key: t.String(),
  project_id: t.String(),
  title: t.String(),
  lane: t.String(),
  status: t.String(),
  work_class: t.String(),
  work_item_truth_owner: t.String(),
  source_truth_owner: t.String(),
  source_reference_type: t.String(),
  source_reference: Nullable(t.String()),
  version_token: Ts,
  workflow_state: t.String(),
  external_truth_state: Nullable(t.String()),
  external_truth: t.Boolean(),
  missing_context: t.Boolean(),
  partial_visibility: t.Boolean(),
  writeback_guard_state: t.String(),
  case_lifecycle_guard: Nullable(t.String()),
  lifecycle_completion_guard: Nullable(t.String()),
  consumer_remediation_actions: t.Array(t.String()),
  lifecycle_state: t.String(),
  cycle_key: Nullable(t.String()),
  module_key: Nullable(t.String()),
  created_at: Ts,
  updated_at: Ts,
})

export const TaskList = t.Object({ items: t.Array(Task), next_cursor: Nullable(t.String()) })
export const TaskListQuery = t.Object({
  ...PageQuery,
  lane: t.Optional(Key('lane')),
  work_class: t.Optional(lit('project_work', 'case_linked_work', 'system_runtime_work')),
  workflow_state: t.Optional(t.String({ maxLength: 64 })),
})

export const CreateTaskRequest = t.Object({
  task_key: t.Optional(TaskKey),
  title: Text(500, 'title'),
  lane: t.Optional(Key('lane')),
  status: t.Optional(Text(64, 'status')),
  work_class: t.Optional(lit('project_work', 'system_runtime_work')),
  cycle_key: t.Optional(Key('planning cycle')),
  module_key: t.Optional(Key('planning module')),
})

export const UpdateTaskRequest = t.Object({
  lane: Key('lane'),
  expected_version: t.Optional(t.String({ maxLength: 40, description: 'the version_token last read' })),
  title: t.Optional(Text(500, 'title')),
  status: t.Optional(Text(64, 'status')),
})

export const Board = t.Object({
  project_id: t.String(),
  lanes: t.Array(
    t.Object({
      lane_key: t.String(),
      title: t.String(),
      position: t.Integer(),
      task_count: t.Integer(),
      tasks: t.Array(Task),
      truncated: t.Boolean(),
    }),
  ),
  task_count: t.Integer(),
  generated_at: Ts,
})

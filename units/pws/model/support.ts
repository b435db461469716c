/**
 * The EIS → PWS support handoff (CONTRACTS.md §4): EIS's correlation envelope. Extra fields are
 * accepted (EIS may send more than PWS reads) and kept with the handoff record.
 */
import { t } from 'elysia'
import { Key, lit } from './common.ts'
import { Task } from './tasks.ts'

const Id = (description: string) => t.String({ minLength: 1, maxLength: 200, description })

export const SupportEnvelope = t.Object(
  {
    correlation_id: Id('EIS correlation id: the handoff is idempotent on it'),
    source: t.Object(
      {
        system: Id('the ticketing system'),
        ticket_id: Id('the ticket id there'),
        event: Id('what happened'),
      },
      { additionalProperties: true },
    ),
    ticket: t.Object(
      {
        id: Id('ticket id'),
        state: t.String({ minLength: 1, maxLength: 64 }),
        priority: t.String({ minLength: 1, maxLength: 64 }),
        title: t.Optional(t.String({ maxLength: 500 })),
        article: t.Optional(t.String({ maxLength: 20_000 })),
      },
      { additionalProperties: true },
    ),
    business_refs: t.Optional(t.Record(t.String(), t.Unknown())),
    project_id: t.Optional(Key('project that receives the work')),
  },
  { additionalProperties: true },
)

export const SupportHandoffResponse = t.Object({
  ok: t.Literal(true),
  result: lit('created', 'updated', 'unchanged'),
  correlation_id: t.String(),
  project_id: t.String(),
  task_key: t.String(),
  work_class: t.Literal('case_linked_work'),
  task: Task,
})

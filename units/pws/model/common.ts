/** Schema helpers every PWS family uses. */
import type { TSchema } from '@sinclair/typebox'
import { t } from 'elysia'

export { lit } from '../../../common/schema.ts'

export const Nullable = <S extends TSchema>(s: S) => t.Union([s, t.Null()])
export const Ts = t.String({ description: 'ISO 8601 UTC timestamp with milliseconds', maxLength: 40 })

/** Keys chosen by clients: lowercase, digits, dashes and underscores. */
export const Key = (description: string) =>
  t.String({
    pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
    description: `${description}: lowercase key, 1-64 chars`,
  })

export const ProjectId = Key('project id')
export const ProjectParams = t.Object({ project_id: ProjectId })

export const Limit = t.Integer({ minimum: 1, maximum: 500, default: 100, description: '1-500, default 100' })
export const Cursor = t.String({ maxLength: 512, description: 'next_cursor of the previous page' })
export const PageQuery = { limit: t.Optional(Limit), cursor: t.Optional(Cursor) }

/** A page of a list: `next_cursor` is null on the last page. */
export const Page = <S extends TSchema>(item: S, description: string) =>
  t.Object({ items: t.Array(item), next_cursor: Nullable(t.String()) }, { description })

export const Text = (max: number, description: string) =>
  t.String({ minLength: 1, maxLength: max, description })

import { Elysia } from 'elysia'
import type { Storage } from '../../../db/storage.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import { AuditList, AuditQuery, LimitQuery, RolloutHistory } from '../model.ts'
import { rolloutView } from '../service/runtime.ts'
import * as store from '../store.ts'
import { READ_ERRORS } from './runtime.ts'

const DEFAULT_LIMIT = 100

/** Audit events, rollout audit and rollout history (newest first). */
export const auditRoutes = (deps: { storage: Storage; auth: AuthorityPlugin }) =>
  new Elysia({ name: 'rms:audit' }).use(deps.auth).guard({ access: 'read' }, (app) =>
    app
      .get(
        '/api/v1/audit/events',
        async ({ authority, query }) => {
          const limit = query.limit ?? DEFAULT_LIMIT
          const events = await store.listAudit(deps.storage.db, {
            kindPrefix: query.kind,
            before: query.before,
            limit,
          })
          return {
            events,
            count: events.length,
            next_before: events.length === limit ? events[events.length - 1]!.event_id : null,
            ...mark(authority),
          }
        },
        {
          query: AuditQuery,
          response: { 200: AuditList, ...READ_ERRORS },
          detail: { summary: 'Audit events (kind prefix, cursor)' },
        },
      )
      .get(
        '/api/v1/rollouts/audit',
        async ({ authority, query }) => {
          const limit = query.limit ?? DEFAULT_LIMIT
          const events = await store.listAudit(deps.storage.db, { kindPrefix: 'rollout.', limit })
          return {
            events,
            count: events.length,
            next_before: events.length === limit ? events[events.length - 1]!.event_id : null,
            ...mark(authority),
          }
        },
        {
          query: LimitQuery,
          response: { 200: AuditList, ...READ_ERRORS },
          detail: { summary: 'Rollout audit events' },
        },
      )
      .get(
        '/api/v1/rollouts/history',
        async ({ authority, query }) => {
          const items = (await store.listRollouts(deps.storage.db, query.limit ?? DEFAULT_LIMIT)).map(
            rolloutView,
          )
          return {
            items,
            count: items.length,
            total: await store.rolloutCount(deps.storage.db),
            ...mark(authority),
          }
        },
        {
          query: LimitQuery,
          response: { 200: RolloutHistory, ...READ_ERRORS },
          detail: { summary: 'Rollout history' },
        },
      ),
  )

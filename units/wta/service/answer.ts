/**
 * The one success body of WTA, for the API and for `svc wta … --json` alike:
 * `{ok: true, data, meta: {api_version, generated_at, source, stale?, reason?}}`.
 */
import { Type as T, type TProperties, type TSchema } from '@sinclair/typebox'

/** The API surface version (spec, Versioning: exposed through /api/v1/status). */
export const API_SURFACE_VERSION = '1.0.0'

export const SOURCES = ['live', 'snapshot', 'catalog', 'registry', 'file', 'stored'] as const
export type Source = (typeof SOURCES)[number]

export interface Meta {
  source: Source
  /** True when the answer comes from a stored copy because the live read failed. */
  stale?: boolean
  /** Why the live read failed, when stale. */
  reason?: string
}

export interface Answered<D> {
  ok: true
  data: D
  meta: Meta & { api_version: string; generated_at: string }
}

export const answer = <D>(data: D, meta: Meta, at = new Date()): Answered<D> => ({
  ok: true,
  data,
  meta: { api_version: API_SURFACE_VERSION, generated_at: at.toISOString(), ...meta },
})

export const MetaSchema = T.Object({
  api_version: T.String(),
  generated_at: T.String(),
  source: T.Union([
    T.Literal('live'),
    T.Literal('snapshot'),
    T.Literal('catalog'),
    T.Literal('registry'),
    T.Literal('file'),
    T.Literal('stored'),
  ]),
  stale: T.Optional(T.Boolean()),
  reason: T.Optional(T.String()),
})

/** The route schema of an answer carrying `data`. */
export const Answer = <D extends TSchema, E extends TProperties = Record<never, TSchema>>(
  data: D,
  extra?: E,
) => T.Object({ ok: T.Literal(true), ...(extra as E), data, meta: MetaSchema })

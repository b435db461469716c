import { type Static, Type as T, type TObject, type TProperties } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** Thrown at start-up when the environment is wrong: one line per bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'))
    this.name = 'ConfigError'
  }
}

export const SvcEnv = T.Union([T.Literal('development'), T.Literal('test'), T.Literal('production')], {
  description: 'development, test or production',
  default: 'development',
})

/** Variables every HTTP unit reads (docs/conventions.md §1). */
export const baseEnv = {
  PORT: T.Optional(T.Integer({ minimum: 0, maximum: 65535, description: 'a TCP port 0-65535' })),
  HOST: T.String({ default: '0.0.0.0', minLength: 1, description: 'a bind address' }),
  SVC_DATA_DIR: T.String({ default: './data', minLength: 1, description: 'a directory path' }),
  DATABASE_URL: T.Optional(
    T.String({
      minLength: 1,
      description: 'a SQLite file path, file: URL or :memory:, or a libSQL server (libsql://, http(s)://)',
    }),
  ),
  DATABASE_AUTH_TOKEN: T.Optional(
    T.String({ minLength: 1, description: 'the libSQL server token (a JWT); never logged' }),
  ),
  SVC_ENV: SvcEnv,
  LOG_LEVEL: T.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => T.Literal(l)),
    { default: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
  ),
  SVC_MAX_BODY_BYTES: T.Integer({ minimum: 1024, default: 1_048_576, description: 'a byte count >= 1024' }),
}

export const BaseEnv = T.Object(baseEnv)
export type BaseConfig = Static<typeof BaseEnv>

/** Boolean variables accept the spellings operators actually use. */
const TRUE = new Set(['1', 'true', 'yes', 'on'])
const FALSE = new Set(['0', 'false', 'no', 'off'])

function coerce(kind: string | undefined, raw: string): unknown {
  if (kind === 'boolean') {
    const v = raw.trim().toLowerCase()
    if (TRUE.has(v)) return true
    if (FALSE.has(v)) return false
    return raw
  }
  if (kind === 'integer' || kind === 'number') {
    const n = Number(raw.trim())
    return raw.trim() === '' || Number.isNaN(n) ? raw : n
  }
  return raw
}

function schemaKind(schema: unknown): string | undefined {
  const s = schema as { type?: string; anyOf?: unknown[] }
  return s.type
}

/**
 * Read a typed configuration from the environment. Empty strings count as unset.
 * Every bad variable is reported, not just the first.
 */
export function loadConfig<P extends TProperties>(
  schema: TObject<P>,
  env: Record<string, string | undefined>,
): Static<TObject<P>> {
  const problems: string[] = []
  const out: Record<string, unknown> = {}
  for (const [name, prop] of Object.entries(schema.properties)) {
    const raw = env[name]
    if (raw === undefined || raw === '') {
      const dflt = (prop as { default?: unknown }).default
      if (dflt !== undefined) out[name] = structuredClone(dflt)
      else if (!((schema.required as string[] | undefined) ?? []).includes(name)) continue
      else problems.push(`${name}: required, expected ${describe(prop)}`)
      continue
    }
    const value = coerce(schemaKind(prop), raw)
    if (!Value.Check(prop, value)) {
      problems.push(`${name}: expected ${describe(prop)}, got ${JSON.stringify(redactIfSecret(name, raw))}`)
      continue
    }
    out[name] = value
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return out as Static<TObject<P>>
}

function describe(prop: unknown): string {
  const p = prop as { description?: string; type?: string }
  return p.description ?? p.type ?? 'a valid value'
}

const SECRET_NAME = /SECRET|TOKEN|KEY|PASSWORD/i
const redactIfSecret = (name: string, raw: string) => (SECRET_NAME.test(name) ? '<redacted>' : raw)

/** Parse `name=url,name=url` (SVC_UNIT_URLS). */
export function parseUrlMap(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (raw ?? '').split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0) continue
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  return out
}

export const urlString = (description = 'an http(s) URL') =>
  T.String({ pattern: '^https?://[^\\s]+$', description })

/**
 * API-key authentication, in one place until the shared credentials block lands: keys are
 * `Authorization: Bearer nds_…`, stored as SHA-256 and looked up by hash. The `apiKey` macro
 * decides before the body is validated (an unauthenticated caller learns nothing about the
 * schema), hands the caller to the handler and declares the scheme in the OpenAPI document.
 */
import { randomBytes } from 'node:crypto'
import { Elysia } from 'elysia'
import { unauthorized } from '../../common/errors.ts'
import { sha256Hex } from '../../common/hash.ts'
import { nowIso } from '../../common/time.ts'
import type { NdsStore } from './store.ts'

export const KEY_PREFIX = 'nds_'
const KEY_BYTES = 32

export interface Caller {
  accountId: string
  keyId: string
}

export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'An NDS API key (`svc nds keys create <name>`), sent as Authorization: Bearer <key>.',
  },
}

export const newApiKey = (): string => KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url')
export const hashApiKey = (key: string): string => sha256Hex(key)

/** Create an account-owned key; the key itself is returned once and never stored. */
export async function issueApiKey(store: NdsStore, accountId: string, name: string) {
  const key = newApiKey()
  const { keyId, createdAt } = await store.insertApiKey(accountId, name, hashApiKey(key))
  return { key, keyId, createdAt }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

export async function authenticate(store: NdsStore, header: string | null): Promise<Caller> {
  const key = header ? BEARER.exec(header)?.[1] : undefined
  if (!key) throw unauthorized('authentication_required', 'This route needs Authorization: Bearer <API key>.')
  const found = key.startsWith(KEY_PREFIX) ? await store.findApiKey(hashApiKey(key)) : undefined
  if (!found) throw unauthorized('invalid_api_key', 'The API key is unknown or revoked.')
  await store.touchApiKey(found.keyId, nowIso())
  return found
}

export const apiKeyPlugin = (store: NdsStore) => {
  const callers = new WeakMap<Request, Caller>()
  return new Elysia({ name: 'nds:auth' }).macro({
    apiKey: (enabled: boolean) => ({
      detail: enabled ? { security: [{ apiKey: [] }] } : {},
      async transform({ request }) {
        if (enabled) callers.set(request, await authenticate(store, request.headers.get('authorization')))
      },
      resolve({ request }) {
        const caller = callers.get(request)
        if (!caller)
          throw unauthorized('authentication_required', 'This route needs Authorization: Bearer <API key>.')
        return { caller }
      },
    }),
  })
}

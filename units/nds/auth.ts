/**
 * NDS API keys on the shared credentials block: `Authorization: Bearer nds_…`, stored as SHA-256
 * and looked up by hash; the principal's subject is the account that owns the key.
 */
import {
  type Credential,
  credentials,
  generateApiKey,
  hashApiKey,
  type Principal,
} from '../../common/credentials.ts'
import { unauthorized } from '../../common/errors.ts'
import type { NdsStore } from './store.ts'

export const KEY_PREFIX = 'nds'
/** last_used_at is refreshed at most this often per key, so reads do not each cost a write. */
const TOUCH_INTERVAL_MS = 60_000

export interface Caller {
  accountId: string
}

/** Create an account-owned key; the key itself is returned once and never stored. */
export async function issueApiKey(store: NdsStore, accountId: string, name: string) {
  const key = generateApiKey(KEY_PREFIX)
  const { keyId, createdAt } = await store.insertApiKey(accountId, name, hashApiKey(key))
  return { key, keyId, createdAt }
}

export function ndsCredentials(store: NdsStore, now: () => number) {
  const apiKey: Credential = {
    kind: 'apiKey',
    description: 'An NDS API key (`svc nds keys create <name>`), sent as Authorization: Bearer <key>.',
    async lookup(keyHash) {
      const found = await store.findApiKey(keyHash)
      if (!found) return undefined
      const at = now()
      if (!found.lastUsedAt || at - Date.parse(found.lastUsedAt) > TOUCH_INTERVAL_MS) {
        await store.touchApiKey(found.keyId, new Date(at).toISOString())
      }
      return found.accountId
    },
  }
  return credentials({ apiKey })
}

export type NdsAuth = ReturnType<typeof ndsCredentials>

/** The calling account of a route guarded by `auth: 'apiKey'`. */
export function callerOf(principal: Principal | null): Caller {
  if (!principal) throw unauthorized('unauthorized', 'This route needs credentials.')
  return { accountId: principal.subject }
}

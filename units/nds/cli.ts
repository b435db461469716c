/**
 * `svc nds keys create <name> [--account <account_id>]`: creates an API key (and, without
 * --account, a new account named <name> that owns it) and prints the key alone on the last line.
 * `svc nds keys list` shows keys (never the key itself); `svc nds keys revoke <key_id>` revokes one,
 * which with `create --account` is how a key is rotated.
 */
import { Type as T } from '@sinclair/typebox'
import { defineCli, EXIT_FAILED, EXIT_OK, UsageError } from '../../common/cli.ts'
import { nowIso } from '../../common/time.ts'
import { migrations } from '../../db/migrations/nds/index.ts'
import { openUnitStorage } from '../../runtime/run.ts'
import { issueApiKey } from './auth.ts'
import { meta } from './meta.ts'
import { BUILTIN_MODEL, EMBED_DIMS } from './rules/embed.ts'
import { createStore } from './store.ts'

const MAX_NAME = 200

type Store = ReturnType<typeof createStore>

/** Open the unit's database (migrated), run `work` on its store, close. */
async function withStore<T>(
  config: { SVC_DATA_DIR: string; DATABASE_URL?: string; DATABASE_AUTH_TOKEN?: string },
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const storage = await openUnitStorage({ name: meta.name, migrations, libsql: true }, config)
  try {
    // Key commands never read vectors: the index is left empty.
    return await work(createStore(storage, { model: BUILTIN_MODEL, dims: EMBED_DIMS }))
  } finally {
    await storage.close()
  }
}

export const ndsCli = defineCli({
  name: 'nds',
  title: `${meta.title}: API keys`,
  env: {
    SVC_DATA_DIR: T.String({ default: './data', minLength: 1, description: 'a directory path' }),
    DATABASE_URL: T.Optional(
      T.String({
        minLength: 1,
        description:
          'a SQLite file path, file: URL or :memory:, or a libSQL server URL (libsql://, http(s)://)',
      }),
    ),
    DATABASE_AUTH_TOKEN: T.Optional(T.String({ minLength: 1, description: 'the libSQL server token' })),
  },
  commands: {
    'keys create': {
      summary: 'create an API key (and its account unless --account is given); the key is the last line',
      args: '<name> [--account <account_id>]',
      options: { account: { type: 'string' } },
      positionals: { min: 1, max: 1 },
      async run(ctx) {
        const name = (ctx.positionals[0] ?? '').trim()
        if (name === '' || name.length > MAX_NAME)
          throw new UsageError(`<name> must be 1-${MAX_NAME} characters`)
        return withStore(ctx.config, async (store) => {
          const accountOption = ctx.options.account
          const account =
            typeof accountOption === 'string'
              ? await store.getAccount(accountOption)
              : await store.createAccount(name)
          if (!account) throw new UsageError(`no account '${String(accountOption)}'`)
          const issued = await issueApiKey(store, account.accountId, name)
          return {
            exit: EXIT_OK,
            human: `account_id: ${account.accountId}\nkey_id: ${issued.keyId}\nname: ${name}\n${issued.key}\n`,
            json: {
              account_id: account.accountId,
              key_id: issued.keyId,
              name,
              created_at: issued.createdAt,
              api_key: issued.key,
            },
          }
        })
      },
    },
    'keys list': {
      summary: 'list API keys: id, account, name, created, last used, revoked (never the key)',
      async run(ctx) {
        const keys = await withStore(ctx.config, (store) => store.listApiKeys())
        const lines = keys.map(
          (k) =>
            `${k.keyId}  ${k.accountId}  ${k.name}  created ${k.createdAt}  used ${k.lastUsedAt ?? '-'}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`,
        )
        return {
          exit: EXIT_OK,
          human: `${lines.join('\n')}\n${keys.length} key(s)\n`,
          json: keys.map((k) => ({
            key_id: k.keyId,
            account_id: k.accountId,
            name: k.name,
            created_at: k.createdAt,
            last_used_at: k.lastUsedAt,
            revoked_at: k.revokedAt,
          })),
        }
      },
    },
    'keys revoke': {
      summary: 'revoke an API key by its key_id; requests with it are refused from then on',
      args: '<key_id>',
      positionals: { min: 1, max: 1 },
      async run(ctx) {
        const keyId = ctx.positionals[0] ?? ''
        const revoked = await withStore(ctx.config, (store) => store.revokeApiKey(keyId, nowIso()))
        return revoked
          ? { exit: EXIT_OK, human: `revoked ${keyId}\n`, json: { key_id: keyId, revoked: true } }
          : { exit: EXIT_FAILED, human: `no active key ${keyId}\n`, json: { key_id: keyId, revoked: false } }
      },
    },
  },
})

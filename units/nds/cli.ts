/**
 * `svc nds keys create <name> [--account <account_id>]`: creates an API key (and, without
 * --account, a new account named <name> that owns it) and prints the key alone on the last line.
 */
import { Type as T } from '@sinclair/typebox'
import { defineCli, EXIT_OK, UsageError } from '../../common/cli.ts'
import { migrations } from '../../db/migrations/nds/index.ts'
import { databasePath, openDatabase } from '../../db/sqlite.ts'
import { issueApiKey } from './auth.ts'
import { meta } from './meta.ts'
import { BUILTIN_MODEL, EMBED_DIMS } from './rules/embed.ts'
import { createStore } from './store.ts'

const MAX_NAME = 200

export const ndsCli = defineCli({
  name: 'nds',
  title: `${meta.title}: API keys`,
  env: {
    SVC_DATA_DIR: T.String({ default: './data', minLength: 1, description: 'a directory path' }),
    DATABASE_URL: T.Optional(
      T.String({ minLength: 1, description: 'a SQLite file path, file: URL or :memory:' }),
    ),
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
        const database = openDatabase(
          databasePath(meta.name, ctx.config.SVC_DATA_DIR, ctx.config.DATABASE_URL),
          migrations,
        )
        try {
          // Key creation never reads vectors; the store's index is loaded for the built-in model only.
          const store = createStore(database.db, database.sqlite, { model: BUILTIN_MODEL, dims: EMBED_DIMS })
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
        } finally {
          database.close()
        }
      },
    },
  },
})

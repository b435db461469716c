/**
 * `svc eis facts import <file.jsonl>`: load the identity facts EIS projects (docs/units/eis.md).
 * The file replaces the previous load as a whole; a file with any bad line loads nothing.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { defineCli, EXIT_FAILED, EXIT_OK, UsageError } from '../../common/cli.ts'
import { baseEnv } from '../../common/config.ts'
import { migrations } from '../../db/migrations/eis/index.ts'
import { openUnitStorage } from '../../runtime/run.ts'
import { importFacts } from './service/identity.ts'

export const eisCli = defineCli({
  name: 'eis',
  title: 'ERP integration service',
  env: {
    SVC_DATA_DIR: baseEnv.SVC_DATA_DIR,
    DATABASE_URL: baseEnv.DATABASE_URL,
    DATABASE_AUTH_TOKEN: baseEnv.DATABASE_AUTH_TOKEN,
  },
  commands: {
    'facts import': {
      summary: 'load identity facts (JSON Lines, one subject per line) as the new projection',
      args: '<file.jsonl>',
      positionals: { min: 1, max: 1 },
      async run(ctx) {
        const file = ctx.positionals[0] as string
        let text: string
        try {
          text = readFileSync(file, 'utf8')
        } catch (err) {
          throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`)
        }
        const storage = await openUnitStorage({ name: 'eis', migrations, libsql: true }, ctx.config)
        try {
          const result = await importFacts(storage, text, basename(file))
          if (!result.ok) {
            return {
              exit: EXIT_FAILED,
              human: `nothing loaded: ${result.problems.length} bad line(s)\n${result.problems.map((p) => `  line ${p.line}: ${p.message}`).join('\n')}`,
              json: result,
            }
          }
          return {
            exit: EXIT_OK,
            human: `loaded ${result.rows} identity fact(s) from ${file}\nprojection_version ${result.import_id}`,
            json: result,
          }
        } finally {
          await storage.close()
        }
      },
    },
  },
})

/** A command-line unit (TEL, MEM) or a unit's extra subcommands (`svc nds keys …`). */
export interface CliUnit {
  kind: 'cli'
  name: string
  title: string
  usage: string
  /** Returns the exit code: 0 pass, 1 failed check, 2 bad usage or configuration. */
  run(args: string[], env: Record<string, string | undefined>): Promise<number>
}

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

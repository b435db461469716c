/**
 * The planning repository: a git working copy under the data directory, cloned from
 * PWS_PLANNING_REPO (a path or a clone URL). Pages are `<project_id>/<slug>.md`. Every operation
 * runs the real `git` and is serialized: one git command line at a time per working copy.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

export const GIT_TIMEOUT_MS = 30_000

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      `git ${args[0]} failed (${exitCode ?? 'timeout'}): ${stderr.trim().split('\n').slice(-3).join(' ')}`,
    )
    this.name = 'GitError'
  }
}

/** The remote changed the same lines: our commit is dropped from the working copy, nothing is pushed. */
export class SyncConflict extends Error {
  constructor(
    readonly repoPath: string,
    readonly remoteHead: string,
  ) {
    super(`the repository changed ${repoPath} concurrently`)
    this.name = 'SyncConflict'
  }
}

export interface PlanningRepo {
  /** Where the working copy is. */
  dir: string
  /** Clone when absent; then `git pull --rebase`. Returns HEAD. */
  pull(): Promise<string>
  /**
   * Write a page, commit it, pull with rebase, push; returns the new HEAD. `baseCommit` is the
   * commit the page was last synced at (null for a new page): when the repository changed the
   * file since then, nothing is written and SyncConflict is thrown, never a silent overwrite.
   */
  pushPage(repoPath: string, content: string, message: string, baseCommit: string | null): Promise<string>
  readPage(repoPath: string): string | undefined
  listPages(projectId: string): string[]
  head(): Promise<string>
}

const AUTHOR = {
  GIT_AUTHOR_NAME: 'pws',
  GIT_AUTHOR_EMAIL: 'pws@localhost',
  GIT_COMMITTER_NAME: 'pws',
  GIT_COMMITTER_EMAIL: 'pws@localhost',
}

export function pagePath(projectId: string, slug: string): string {
  return `${projectId}/${slug}.md`
}

export function createPlanningRepo(remote: string, dir: string, timeoutMs = GIT_TIMEOUT_MS): PlanningRepo {
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn)
    queue = next.catch(() => undefined)
    return next
  }

  async function git(args: string[], cwd = dir): Promise<string> {
    const proc = Bun.spawn(['git', ...args], {
      cwd,
      env: { ...process.env, ...AUTHOR, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const timer = setTimeout(() => proc.kill(), timeoutMs)
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ])
    clearTimeout(timer)
    if (code !== 0) throw new GitError(args, proc.signalCode ? null : code, err)
    return out.trim()
  }

  async function ensureClone(): Promise<void> {
    if (existsSync(join(dir, '.git'))) return
    mkdirSync(dirname(dir), { recursive: true })
    await git(['clone', '--quiet', remote, dir], dirname(dir))
  }

  /** An empty remote has no branch yet: nothing to pull. */
  async function hasUpstream(): Promise<boolean> {
    const refs = await git(['ls-remote', '--heads', 'origin'])
    return refs !== ''
  }

  /** `git pull --rebase`; on a conflict, abort and drop local commits (PWS keeps the page). */
  async function rebaseOnto(repoPath: string): Promise<void> {
    try {
      await git(['pull', '--rebase', '--quiet'])
    } catch (err) {
      if (!(err instanceof GitError)) throw err
      await git(['rebase', '--abort']).catch(() => undefined)
      await git(['reset', '--hard', '--quiet', '@{u}'])
      throw new SyncConflict(repoPath, await head())
    }
  }

  /** Whether the repository's history touched `repoPath` after `base` (or has it at all, for a new page). */
  async function changedSince(repoPath: string, base: string | null): Promise<boolean> {
    const current = await head()
    if (current === '') return false
    if (base === null) return existsSync(join(dir, repoPath))
    try {
      return (await git(['rev-list', '--count', `${base}..HEAD`, '--', repoPath])) !== '0'
    } catch {
      return true // the base commit is gone from history (a force push): assume the worst
    }
  }

  async function head(): Promise<string> {
    try {
      return await git(['rev-parse', 'HEAD'])
    } catch {
      return ''
    }
  }

  return {
    dir,
    head,
    pull: () =>
      serial(async () => {
        await ensureClone()
        if (await hasUpstream()) await rebaseOnto('')
        return head()
      }),
    pushPage: (repoPath, content, message, baseCommit) =>
      serial(async () => {
        await ensureClone()
        const upstream = await hasUpstream()
        if (upstream) await rebaseOnto(repoPath)
        if (await changedSince(repoPath, baseCommit)) throw new SyncConflict(repoPath, await head())
        const file = join(dir, repoPath)
        mkdirSync(dirname(file), { recursive: true })
        writeFileSync(file, content)
        await git(['add', '--', repoPath])
        const staged = await git(['diff', '--cached', '--name-only'])
        if (staged !== '') await git(['commit', '--quiet', '-m', message])
        if (!upstream) {
          await git(['push', '--quiet', '-u', 'origin', 'HEAD'])
          return head()
        }
        try {
          await git(['push', '--quiet'])
        } catch (err) {
          if (!(err instanceof GitError)) throw err
          // Someone pushed in between: put our commit on top of theirs, then push once more.
          await rebaseOnto(repoPath)
          await git(['push', '--quiet'])
        }
        return head()
      }),
    readPage(repoPath) {
      const file = join(dir, repoPath)
      return existsSync(file) ? readFileSync(file, 'utf8') : undefined
    },
    listPages(projectId) {
      const folder = join(dir, projectId)
      if (!existsSync(folder)) return []
      return readdirSync(folder)
        .filter((f) => f.endsWith('.md'))
        .map((f) => f.slice(0, -3))
        .sort()
    },
  }
}

/** A page's title is its first `# ` heading; the rest is its body. */
export function parsePage(markdown: string, slug: string): { title: string; body: string } {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n')
  const first = lines.findIndex((l) => l.trim() !== '')
  const heading = first === -1 ? undefined : /^#\s+(.+)$/.exec(lines[first] as string)
  if (!heading) return { title: slug, body: markdown }
  return {
    title: (heading[1] as string).trim(),
    body: lines
      .slice(first + 1)
      .join('\n')
      .replace(/^\n+/, ''),
  }
}

export function renderPage(title: string, body: string): string {
  return `# ${title}\n\n${body.endsWith('\n') || body === '' ? body : `${body}\n`}`
}

import { existsSync, statSync } from 'node:fs'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { Elysia, t } from 'elysia'
import { ErrorEnvelope, notFound } from '../../../common/errors.ts'
import { shippedSite } from '../public/files.ts'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
}

const HTML_HEADERS = {
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'self'; script-src 'self' https://challenges.cloudflare.com; frame-src https://challenges.cloudflare.com; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'strict-origin-when-cross-origin',
}

export interface SiteOptions {
  /** Serve this directory instead of the shipped site. */
  publicDir: string | undefined
}

export interface Site {
  /** The file behind a URL path, or undefined. Never leaves the public directory. */
  locate(urlPath: string): string | undefined
  /** Whether the pages the contact flow needs are there. */
  hasPublicRoutes(): boolean
}

export function createSite(options: SiteOptions): Site {
  const root = options.publicDir ? resolve(options.publicDir) : undefined
  const fileAt = (path: string): string | undefined => {
    if (!root) return shippedSite[path]
    const full = normalize(join(root, path))
    if (full !== root && !full.startsWith(root + sep)) return undefined
    return existsSync(full) && statSync(full).isFile() ? full : undefined
  }
  return {
    locate(urlPath) {
      let path: string
      try {
        path = decodeURIComponent(urlPath)
      } catch {
        return undefined
      }
      if (path.includes('\0') || path.split('/').includes('..')) return undefined
      if (path.endsWith('/')) path += 'index.html'
      return fileAt(path) ?? (extname(path) === '' ? fileAt(`${path}.html`) : undefined)
    },
    hasPublicRoutes: () => fileAt('/index.html') !== undefined && fileAt('/contact.html') !== undefined,
  }
}

function render(html: string, vars: Record<string, string>): string {
  return html.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => Bun.escapeHTML(vars[name] ?? ''))
}

async function fileResponse(file: string, status: number, vars: Record<string, string>): Promise<Response> {
  const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
  if (type.startsWith('text/html')) {
    const html = render(await Bun.file(file).text(), vars)
    return new Response(html, { status, headers: { 'content-type': type, ...HTML_HEADERS } })
  }
  return new Response(Bun.file(file), {
    status,
    headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' },
  })
}

/** Static files; a miss is the HTML 404 page for browsers and the error envelope for everyone else. */
export const siteRoutes = (site: Site, vars: Record<string, string>) =>
  new Elysia({ name: 'web:site' }).get(
    '/*',
    async ({ request }) => {
      const path = new URL(request.url).pathname
      const file = site.locate(path)
      if (file) return fileResponse(file, 200, vars)
      const page = (request.headers.get('accept') ?? '').includes('text/html')
        ? site.locate('/404.html')
        : undefined
      if (page) return fileResponse(page, 404, vars)
      throw notFound('not_found', 'No page or route at this path.')
    },
    {
      // No params schema: Elysia cannot build its mirror for the `*` key; the path is checked by locate().
      response: { 200: t.String({ description: 'file contents' }), 404: ErrorEnvelope },
      detail: {
        summary: 'Static site',
        description: 'The public site: HTML pages, styles and scripts.',
        hide: true,
      },
    },
  )

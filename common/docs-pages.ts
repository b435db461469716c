/**
 * Interactive API documentation pages, served by every unit that publishes an OpenAPI document.
 * The viewers' files are imported `with { type: 'file' }`, so `bun build --compile` embeds them in
 * the executable: nothing is fetched from a CDN (operators run air-gapped). A page's assets are
 * served under `<page>/assets/<name>` with a long cache header; the HTML names them with the
 * viewer's version as a query, so an upgrade is never served a stale asset.
 */
import { extname } from 'node:path'
import { type AnyElysia, t } from 'elysia'
import swaggerPackage from 'swagger-ui-dist/package.json' with { type: 'json' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerInit from './docs-page/swagger-init.js' with { type: 'file' }
import { notFound } from './errors.ts'

export interface DocsPage {
  /** Where the page is served, e.g. `/docs`; its assets are under `<path>/assets/`. */
  path: string
  /** Files the page references, by the name they are served under. */
  assets: Readonly<Record<string, string>>
  /** Changes whenever an asset does: the query that busts caches. */
  version: string
  /** The page's HTML, given the unit's OpenAPI document path and a function naming an asset's URL. */
  html(page: { title: string; specUrl: string; asset: (name: string) => string }): string
}

/** Swagger UI (swagger-ui-dist: one bundle and one stylesheet), with "try it out" on the unit itself. */
export const SWAGGER_UI: DocsPage = {
  path: '/docs',
  assets: {
    'swagger-ui.css': swaggerCss,
    'swagger-ui-bundle.js': swaggerBundle,
    'swagger-init.js': swaggerInit,
  },
  version: swaggerPackage.version,
  html: ({ title, specUrl, asset }) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${Bun.escapeHTML(title)}</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui" data-spec-url="${Bun.escapeHTML(specUrl)}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('swagger-init.js')}"></script>
</body>
</html>
`,
}

export const DEFAULT_DOCS_PAGES: readonly DocsPage[] = [SWAGGER_UI]

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
}

/** The assets never change under a version: a year, the longest cache browsers honour. */
const ASSET_CACHE = 'public, max-age=31536000, immutable'

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  // Same origin only; the viewers set inline styles and draw icons from data: URIs.
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
}

/** Adds `GET <page.path>` and `GET <page.path>/assets/:name` for each page (hidden from the document). */
export function serveDocsPages(
  app: AnyElysia,
  specPath: string,
  title: string,
  pages: readonly DocsPage[] = DEFAULT_DOCS_PAGES,
): AnyElysia {
  for (const page of pages) {
    const asset = (name: string) => `${page.path}/assets/${name}?v=${encodeURIComponent(page.version)}`
    const html = page.html({ title, specUrl: specPath, asset })
    app
      .get(page.path, () => new Response(html, { headers: PAGE_HEADERS }), {
        response: { 200: t.String({ description: 'HTML page' }) },
        detail: { hide: true },
      })
      .get(
        `${page.path}/assets/:name`,
        ({ params }) => {
          const file = Object.hasOwn(page.assets, params.name) ? page.assets[params.name] : undefined
          if (!file) throw notFound('asset_not_found', 'The documentation page has no such asset.')
          const type = ASSET_TYPES[extname(params.name)] ?? 'application/octet-stream'
          return new Response(Bun.file(file), {
            headers: { 'content-type': type, 'cache-control': ASSET_CACHE },
          })
        },
        {
          params: t.Object({ name: t.String({ maxLength: 100 }) }),
          response: { 200: t.String({ description: 'asset bytes' }) },
          detail: { hide: true },
        },
      )
  }
  return app
}

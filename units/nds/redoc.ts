/**
 * `/redoc`, the spec's second docs route: Redoc's standalone bundle, embedded in the executable
 * like Swagger UI's files (no CDN). The `<redoc spec-url>` element starts itself, so the page needs
 * no inline script.
 */

import redocBundle from 'redoc/bundles/redoc.standalone.js' with { type: 'file' }
import redocPackage from 'redoc/package.json' with { type: 'json' }
import type { DocsPage } from '../../common/docs-pages.ts'

export const REDOC: DocsPage = {
  path: '/redoc',
  assets: { 'redoc.standalone.js': redocBundle },
  version: redocPackage.version,
  html: ({ title, specUrl, asset }) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${Bun.escapeHTML(title)}</title>
</head>
<body>
<redoc spec-url="${Bun.escapeHTML(specUrl)}"></redoc>
<script src="${asset('redoc.standalone.js')}"></script>
</body>
</html>
`,
}

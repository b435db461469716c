// The shipped site, embedded so the compiled executable serves it with no files on disk.
// Every file under public/ is listed here; site.test.ts checks that none is missing.
import notFound from './404.html' with { type: 'file' }
import contactJs from './assets/contact.js' with { type: 'file' }
import siteCss from './assets/site.css' with { type: 'file' }
import contact from './contact.html' with { type: 'file' }
import index from './index.html' with { type: 'file' }

/** bun-types types `.html` imports as HTML bundles; with `type: 'file'` they are paths. */
const path = (file: unknown) => file as string

export const shippedSite: Record<string, string> = {
  '/index.html': path(index),
  '/contact.html': path(contact),
  '/404.html': path(notFound),
  '/assets/site.css': siteCss,
  '/assets/contact.js': contactJs,
}

import { existsSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'

/** Debian's Chromium, when installed; browser tests skip without it (apt-get install chromium). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface ContactFields {
  name: string
  email: string
  interest: string
  message: string
}

/**
 * Fill WEB's contact form on `page` (already on the contact page) as a person does, submit it,
 * and resolve with the confirmation's text once the page shows it.
 */
export async function submitContactForm(page: Page, fields: ContactFields): Promise<string | null> {
  await page.fill('input[name=name]', fields.name)
  await page.fill('input[name=email]', fields.email)
  await page.selectOption('select[name=interest]', fields.interest)
  await page.fill('textarea[name=message]', fields.message)
  await page.click('button[type=submit]')
  const status = page.locator('#form-status.ok')
  await status.waitFor({ timeout: 10_000 })
  return status.textContent()
}

/** What the browser tests type into the form. */
export const A_PERSON: ContactFields = {
  name: 'Margaret Hamilton',
  email: 'margaret@example.com',
  interest: 'platform_evaluation',
  message: 'We would like a demo of the suite.',
}

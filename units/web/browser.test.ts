import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { CHROMIUM, launchChromium } from '../../test/chromium.ts'
import { fakePeer, json, runUnitProcess, tempDir } from '../../test/harness.ts'
import { DUMMY_TOKEN } from './rules/turnstile.ts'

if (!CHROMIUM) console.warn('browser test skipped: no Chromium installed (apt-get install chromium)')

const siteverify = fakePeer((req) =>
  new URLSearchParams(req.body).get('response') === DUMMY_TOKEN
    ? json({ success: true, 'error-codes': [] })
    : json({ success: false, 'error-codes': ['invalid-input-response'] }),
)
afterAll(() => siteverify.stop())

test.skipIf(!CHROMIUM)(
  'a person fills the contact form in Chromium, sees the confirmation, and the intake is stored',
  async () => {
    const dir = tempDir()
    const unit = await runUnitProcess('web', '/health', {
      SVC_DATA_DIR: dir,
      TURNSTILE_SECRET_KEY: 'offline-test-secret',
      TURNSTILE_VERIFY_URL: siteverify.url,
    })
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await page.goto(`${unit.url}/`)
      await page.click('text=Talk to us')
      await page.waitForURL('**/contact.html')
      await page.fill('input[name=name]', 'Margaret Hamilton')
      await page.fill('input[name=email]', 'margaret@example.com')
      await page.selectOption('select[name=interest]', 'platform_evaluation')
      await page.fill('textarea[name=message]', 'We would like a demo of the suite.')
      await page.click('button[type=submit]')
      const status = page.locator('#form-status.ok')
      await status.waitFor({ timeout: 10_000 })
      const text = await status.textContent()
      expect(text).toContain('Thank you')
      const intakeId = /reference ([0-9a-f-]{36})/.exec(text ?? '')?.[1]
      expect(intakeId).toBeDefined()

      const db = new Database(join(dir, 'web.sqlite'), { readonly: true })
      const row = db
        .query('SELECT name, email, interest FROM contact_intakes WHERE intake_id = ?')
        .get(intakeId ?? '')
      db.close()
      expect(row).toEqual({
        name: 'Margaret Hamilton',
        email: 'margaret@example.com',
        interest: 'platform_evaluation',
      })
      expect(
        siteverify.requests.some((r) => new URLSearchParams(r.body).get('response') === DUMMY_TOKEN),
      ).toBe(true)
    } finally {
      await browser.close()
      await unit.stop()
    }
  },
  60_000,
)

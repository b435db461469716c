// Contact form: posts multipart form data to /api/contact and shows the answer.
;(() => {
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content?.trim() ?? ''
  const siteKey = meta('turnstile-site-key')
  const devToken = meta('turnstile-dev-token')
  const form = document.getElementById('contact-form')
  const status = document.getElementById('form-status')

  if (siteKey) {
    window.onTurnstileLoad = () => window.turnstile.render('#turnstile-widget', { sitekey: siteKey })
    const script = document.createElement('script')
    script.src =
      'https://challenges.cloudflare.com/turnstile/v0/api.js?onload=onTurnstileLoad&render=explicit'
    script.async = true
    document.head.appendChild(script)
  }

  const show = (text, kind) => {
    status.textContent = text
    status.className = kind
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = new FormData(form)
    if (!siteKey && devToken) data.set('cf-turnstile-response', devToken)
    const button = form.querySelector('button')
    button.disabled = true
    show('Sending…', '')
    try {
      const res = await fetch(form.action, {
        method: 'POST',
        body: data,
        headers: { accept: 'application/json' },
      })
      const body = await res.json().catch(() => ({}))
      if (res.ok && body.ok) {
        form.reset()
        show(`${body.message} (reference ${body.intake_id})`, 'ok')
      } else {
        show(body.error?.message ?? 'The message could not be sent. Please try again.', 'error')
        if (siteKey) window.turnstile?.reset()
      }
    } catch {
      show('The message could not be sent: the network is unavailable.', 'error')
    } finally {
      button.disabled = false
    }
  })
})()

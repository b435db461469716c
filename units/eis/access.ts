/**
 * Who may call what (CONTRACTS.md §3), on the shared blocks:
 * - trusted internal callers: `Authorization: Bearer <EIS_INTERNAL_TOKEN>` (credentials macro,
 *   `{ auth: 'internal' }`); an ERP session cookie only exists with a real Frappe backend and is
 *   out of scope (docs/units/eis.md);
 * - MCP clients: `X-SVC-Key: <EIS_MCP_KEY>` (checked by the gateway, handshake exempt);
 * - webhooks and callbacks: `X-Signature`, hex HMAC-SHA256 of the raw body with the secret the
 *   spec names per route (signature macro, `{ signed: '<verifier>' }`); `<SECRET>_PREVIOUS` is also
 *   accepted while a secret rotates.
 */
import { credentials } from '../../common/credentials.ts'
import { hmacHex, signaturePlugin } from '../../common/signature.ts'

export interface AccessConfig {
  EIS_INTERNAL_TOKEN?: string
  EIS_MCP_KEY?: string
  PAYMENT_PROVIDER_A_WEBHOOK_SECRET?: string
  PAYMENT_PROVIDER_A_WEBHOOK_SECRET_PREVIOUS?: string
  PAYMENT_PROVIDER_B_WEBHOOK_SECRET?: string
  PAYMENT_PROVIDER_B_WEBHOOK_SECRET_PREVIOUS?: string
  AUTOMATION_SHARED_SECRET?: string
  AUTOMATION_SHARED_SECRET_PREVIOUS?: string
  ERP_API_SHARED_SECRET?: string
  ERP_API_SHARED_SECRET_PREVIOUS?: string
  TICKETING_WEBHOOK_SECRET?: string
  TICKETING_WEBHOOK_SECRET_PREVIOUS?: string
}

export const eisCredentials = (c: AccessConfig) =>
  credentials({
    internal: {
      kind: 'bearer',
      tokens: [c.EIS_INTERNAL_TOKEN],
      description: 'EIS_INTERNAL_TOKEN (trusted internal callers)',
    },
    mcp: { kind: 'header', header: 'X-SVC-Key', keys: [c.EIS_MCP_KEY], description: 'EIS_MCP_KEY' },
  })
export type EisCredentials = ReturnType<typeof eisCredentials>

type SecretName =
  | 'PAYMENT_PROVIDER_A_WEBHOOK_SECRET'
  | 'PAYMENT_PROVIDER_B_WEBHOOK_SECRET'
  | 'AUTOMATION_SHARED_SECRET'
  | 'ERP_API_SHARED_SECRET'
  | 'TICKETING_WEBHOOK_SECRET'

/** The secret and, during a rotation, its predecessor. */
const withPrevious = (c: AccessConfig, name: SecretName) => [c[name], c[`${name}_PREVIOUS`]]

const signed = (secrets: (string | undefined)[], name: string) => ({
  profile: hmacHex('X-Signature'),
  secrets,
  description: `hex HMAC-SHA256 of the raw body with ${name}`,
})

/** The ticketing route's secret: TICKETING_WEBHOOK_SECRET, else AUTOMATION_SHARED_SECRET (the spec's fallback). */
export const ticketingSecrets = (c: AccessConfig) =>
  withPrevious(c, c.TICKETING_WEBHOOK_SECRET ? 'TICKETING_WEBHOOK_SECRET' : 'AUTOMATION_SHARED_SECRET')

export const eisSignatures = (c: AccessConfig) =>
  signaturePlugin({
    paymentProviderA: signed(
      withPrevious(c, 'PAYMENT_PROVIDER_A_WEBHOOK_SECRET'),
      'PAYMENT_PROVIDER_A_WEBHOOK_SECRET',
    ),
    paymentProviderB: signed(
      withPrevious(c, 'PAYMENT_PROVIDER_B_WEBHOOK_SECRET'),
      'PAYMENT_PROVIDER_B_WEBHOOK_SECRET',
    ),
    automation: signed(
      withPrevious(c, 'AUTOMATION_SHARED_SECRET'),
      'AUTOMATION_SHARED_SECRET (supplier intake and callbacks)',
    ),
    erpApi: signed(
      withPrevious(c, 'ERP_API_SHARED_SECRET'),
      'ERP_API_SHARED_SECRET (website contact intake)',
    ),
    ticketing: signed(ticketingSecrets(c), 'TICKETING_WEBHOOK_SECRET, else AUTOMATION_SHARED_SECRET'),
  })
export type EisSignatures = ReturnType<typeof eisSignatures>

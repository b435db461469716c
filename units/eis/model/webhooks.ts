/**
 * Webhook bodies. Each keeps fields EIS does not know (providers add fields; WEB's blocks are
 * extensible), and names only what EIS reads.
 */
import { t } from 'elysia'
import { Message, Nullable, Open } from './common.ts'

const Str = (max = 1000) => t.String({ minLength: 1, maxLength: max })
const Email = t.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' })

/** Exactly what WEB forwards (its `rules/delivery.ts`), extra fields tolerated inside each block. */
export const WebsiteContactIntake = t.Object(
  {
    contact: Open({
      name: Str(200),
      email: Email,
      message: t.String({ maxLength: 20_000 }),
      company: t.Optional(t.String({ maxLength: 200 })),
      phone: t.Optional(t.String({ maxLength: 100 })),
    }),
    interest: Str(200),
    profiling: Open({}),
    site: Open({}),
    platform_event: Open({ event_id: Str(200) }),
  },
  { additionalProperties: true },
)

export const ContactIntakeAck = Message(
  t.Object({
    integration_event: t.String(),
    target_doctype: t.Literal('Lead'),
    lead: t.String(),
    ack: t.Literal(true),
    duplicate: t.Boolean({ description: 'true when this platform_event.event_id was already received' }),
  }),
)

const Amount = t.Union([t.Number(), t.String({ pattern: '^-?[0-9]+$' })], { description: 'minor units' })

/** Provider A (Stripe-shaped events): `{id, type, data: {object}}`. */
export const PaymentProviderAEvent = Open({
  id: Str(255),
  type: Str(255),
  data: Open({
    object: Open({
      id: t.Optional(Str(255)),
      amount: t.Optional(Amount),
      amount_received: t.Optional(Amount),
      amount_paid: t.Optional(Amount),
      amount_total: t.Optional(Amount),
      currency: t.Optional(t.String({ minLength: 3, maxLength: 3 })),
      customer: t.Optional(Nullable(t.String({ maxLength: 255 }))),
      description: t.Optional(Nullable(t.String({ maxLength: 1000 }))),
    }),
  }),
})

/** Provider B (Paddle-shaped events): `{event_id, event_type, data}`. */
export const PaymentProviderBEvent = Open({
  event_id: Str(255),
  event_type: Str(255),
  occurred_at: t.Optional(t.String()),
  data: Open({
    id: t.Optional(Str(255)),
    currency_code: t.Optional(t.String({ minLength: 3, maxLength: 3 })),
    customer_id: t.Optional(Nullable(t.String({ maxLength: 255 }))),
    details: t.Optional(
      Open({ totals: t.Optional(Open({ grand_total: t.Optional(Amount), total: t.Optional(Amount) })) }),
    ),
  }),
})

export const PaymentAck = Message(
  t.Object({
    ok: t.Literal(true),
    integration_event: t.String(),
    duplicate: t.Boolean(),
    status: t.String({
      description: 'processed (a revenue event staged) or ignored (an event type that carries no revenue)',
    }),
    revenue_event: Nullable(t.String()),
  }),
)

const Money = t.Union([t.Number(), t.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' })])

/** The normalized supplier intake: every block optional at staging; posting checks completeness. */
export const SupplierIntakePayload = Open({
  intake_id: t.Optional(Str(255)),
  vendor: t.Optional(Open({ name: t.Optional(Str(255)), tax_id: t.Optional(t.String({ maxLength: 100 })) })),
  invoice: t.Optional(
    Open({
      number: t.Optional(Str(255)),
      date: t.Optional(t.String({ maxLength: 40 })),
      due_date: t.Optional(t.String({ maxLength: 40 })),
      currency: t.Optional(t.String({ minLength: 3, maxLength: 3 })),
    }),
  ),
  totals: t.Optional(
    Open({ net_total: t.Optional(Money), tax_total: t.Optional(Money), grand_total: t.Optional(Money) }),
  ),
  line_items: t.Optional(
    t.Array(
      Open({
        description: t.Optional(t.String({ maxLength: 1000 })),
        quantity: t.Optional(Money),
        unit_price: t.Optional(Money),
        amount: t.Optional(Money),
      }),
      { maxItems: 1000 },
    ),
  ),
  attachments: t.Optional(
    t.Array(
      Open({
        filename: t.Optional(t.String({ maxLength: 500 })),
        url: t.Optional(t.String({ maxLength: 2000 })),
      }),
      { maxItems: 100 },
    ),
  ),
})

export const SupplierIntakeAck = Message(
  t.Object({
    ok: t.Literal(true),
    integration_event: t.String(),
    duplicate: t.Boolean(),
    supplier_intake: t.String(),
    status: t.String(),
  }),
)

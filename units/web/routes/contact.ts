import { Elysia } from 'elysia'
import { ErrorEnvelope } from '../../../common/errors.ts'
import { type IntakeDeps, submitContact } from '../intake.ts'
import { ContactIntakeRequest, ContactIntakeResponse } from '../model.ts'

export const CONTACT_CONTENT_TYPES = [
  'application/json',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
]

export const contactRoutes = (deps: IntakeDeps) =>
  new Elysia({ name: 'web:contact' }).post(
    '/api/contact',
    ({ body, request, server }) => submitContact(deps, body, server?.requestIP(request)?.address),
    {
      body: ContactIntakeRequest,
      response: {
        200: ContactIntakeResponse,
        400: ErrorEnvelope,
        401: ErrorEnvelope,
        413: ErrorEnvelope,
        415: ErrorEnvelope,
        422: ErrorEnvelope,
        503: ErrorEnvelope,
      },
      detail: {
        summary: 'Contact intake',
        description:
          'Verifies the Turnstile token with siteverify, refuses the honeypot, stores the intake, then forwards it (webhook) or points to mail.',
      },
    },
  )

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { ContactIntakeRequest, ContactIntakeResponse } from '../model.ts'
import { type IntakeDeps, submitContact } from '../service/intake.ts'

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
      response: { 200: ContactIntakeResponse, ...errorResponses(400, 401, 413, 415, 422, 503) },
      detail: {
        summary: 'Contact intake',
        description:
          'Verifies the Turnstile token with siteverify, refuses the honeypot, stores the intake, then forwards it (webhook) or points to mail.',
      },
    },
  )

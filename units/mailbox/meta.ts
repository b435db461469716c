import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'mailbox',
  title: 'mailbox adapter (WTA messaging stack)',
  port: 18091,
  liveness: '/healthz',
})

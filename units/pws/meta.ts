import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'pws',
  title: 'project workflow service',
  port: 18082,
  liveness: '/healthz',
  readiness: '/readyz',
})

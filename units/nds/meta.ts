import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'nds',
  title: 'news data service',
  port: 18084,
  liveness: '/v1/health/live',
  readiness: '/v1/health/ready',
})
